import { ErrorNotice } from '../../components/error-notice';
import { LogBar } from './log-bar';
import type { JobLog } from './use-job-log';
import { useStickToEnd } from './use-stick-to-end';

/**
 * The live log: lines appended as they arrive. The region is not announced line by line
 * (aria-live off); a status line says whether it is still following. It scrolls with new lines
 * unless the reader scrolled up.
 */
export function LiveLog({ log }: { log: JobLog }) {
  const stick = useStickToEnd<HTMLPreElement>(log.text);

  return (
    <>
      <LogBar
        stick={stick}
        status={
          <>
            {log.phase === 'following' && '● Following the log (live)'}
            {log.phase === 'ended' && `The job ended (${log.endStatus ?? 'finished'}): this is its whole log.`}
            {log.phase === 'failed' && 'Stopped following the log.'}
          </>
        }
      >
        {log.phase === 'failed' && (
          <button type="button" onClick={log.retry}>
            Follow again
          </button>
        )}
      </LogBar>
      {log.phase === 'failed' && <ErrorNotice error={log.error} title="The log stream failed" />}
      {log.trimmed && <p className="muted">The start of a long log is not shown here; the log file keeps it all.</p>}
      <pre ref={stick.ref} className="log" role="region" aria-live="off" aria-label="Job log" tabIndex={0} onScroll={stick.onScroll}>
        {log.text || (log.phase === 'following' ? 'Waiting for output…' : '(no output)')}
      </pre>
    </>
  );
}
