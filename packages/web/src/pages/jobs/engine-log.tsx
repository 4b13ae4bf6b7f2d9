import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { Time } from '../../components/time';
import { isFinished } from './job-format';
import type { JobView } from './job-view';
import { LogBar } from './log-bar';
import { MAX_LOG_BYTES, useLogTail, type LogFile } from './use-log-file';
import { useStickToEnd } from './use-stick-to-end';

/**
 * The engine's own log (engine.log of the job's logs folder), as read: its end when it is large.
 * Not live: while the job runs, Refresh reads it again; it is read again when the job ends.
 */
export function EngineLog({ job, file }: { job: JobView; file: LogFile }) {
  const tail = useLogTail(job, file);
  const running = !isFinished(job.status);
  const text = tail.data?.text ?? '';
  const stick = useStickToEnd<HTMLPreElement>(text);

  return (
    <>
      <LogBar
        stick={stick}
        status={
          <>
            {tail.isFetching && tail.data && 'Reading the engine log again…'}
            {!tail.isFetching && tail.data && running && (
              <>
                The engine log as read at <Time iso={tail.data.readAt} />; the job is still running.
              </>
            )}
            {!tail.isFetching && tail.data && !running && `The job ended (${job.status}): this is the engine log as it ended.`}
          </>
        }
      >
        {running && (
          <button type="button" onClick={() => void tail.refetch()} disabled={tail.isFetching}>
            Refresh
          </button>
        )}
      </LogBar>
      {tail.error !== null && <ErrorNotice error={tail.error} title="Could not read the engine log" />}
      {!tail.data && tail.isPending && <Loading what="the engine log" />}
      {tail.data?.trimmed && (
        <p className="muted">
          The start of a long engine log is not shown here (only its last {MAX_LOG_BYTES / 1_000_000} MB); the file keeps it all (Files,
          Logs).
        </p>
      )}
      {tail.data && (
        <pre ref={stick.ref} className="log" role="region" aria-label="Engine log" tabIndex={0} onScroll={stick.onScroll}>
          {text || '(empty)'}
        </pre>
      )}
    </>
  );
}
