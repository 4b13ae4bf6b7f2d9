import { useLayoutEffect, useRef, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice';
import type { JobLog } from './use-job-log';

/** How close to the bottom counts as "at the end" (the log then keeps scrolling with new lines). */
const BOTTOM_SLACK_PX = 24;

/**
 * The live log: lines appended as they arrive. The region is not announced line by line
 * (aria-live off); a status line says whether it is still following. It scrolls with new lines
 * unless the reader scrolled up.
 */
export function LiveLog({ log }: { log: JobLog }) {
  const pre = useRef<HTMLPreElement>(null);
  const atEnd = useRef(true);
  const [scrolledUp, setScrolledUp] = useState(false);

  useLayoutEffect(() => {
    const el = pre.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [log.text]);

  const onScroll = () => {
    const el = pre.current;
    if (!el) return;
    atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight <= BOTTOM_SLACK_PX;
    setScrolledUp(!atEnd.current);
  };
  const toEnd = () => {
    const el = pre.current;
    if (!el) return;
    atEnd.current = true;
    setScrolledUp(false);
    el.scrollTop = el.scrollHeight;
  };

  return (
    <>
      <div className="log-bar">
        <p role="status" className="log-status">
          {log.phase === 'following' && '● Following the log (live)'}
          {log.phase === 'ended' && `The job ended (${log.endStatus ?? 'finished'}): this is its whole log.`}
          {log.phase === 'failed' && 'Stopped following the log.'}
        </p>
        <div className="actions">
          {scrolledUp && (
            <button type="button" className="secondary" onClick={toEnd}>
              Scroll to the end
            </button>
          )}
          {log.phase === 'failed' && (
            <button type="button" onClick={log.retry}>
              Follow again
            </button>
          )}
        </div>
      </div>
      {log.phase === 'failed' && <ErrorNotice error={log.error} title="The log stream failed" />}
      {log.trimmed && <p className="muted">The start of a long log is not shown here; the log file keeps it all.</p>}
      <pre ref={pre} className="log" aria-live="off" aria-label="Job log" tabIndex={0} onScroll={onScroll}>
        {log.text || (log.phase === 'following' ? 'Waiting for output…' : '(no output)')}
      </pre>
    </>
  );
}
