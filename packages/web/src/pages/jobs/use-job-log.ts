import { useEffect, useRef, useState } from 'react';
import { useApi } from '../../api/session';

/** The most of a log a page keeps (the start of a longer one is dropped; the file keeps it all). */
const MAX_CHARS = 2_000_000;

export interface JobLog {
  text: string;
  /** Some of the start was dropped (MAX_CHARS). */
  trimmed: boolean;
  phase: 'following' | 'ended' | 'failed';
  /** The job's last status, as the stream told it. */
  endStatus: string | null;
  error: unknown;
  /** Follows again from where the log stopped (after a failure). */
  retry(): void;
}

/**
 * The job's log as it is written: `followJob` of the SDK (the events route; it reconnects from the
 * last offset when the stream drops), until the job ends. `onStatus` hears each status change.
 */
export function useJobLog(jobId: string, workspaceId: string, onStatus: (status: string) => void): JobLog {
  const api = useApi();
  const [text, setText] = useState('');
  const [trimmed, setTrimmed] = useState(false);
  const [phase, setPhase] = useState<JobLog['phase']>('following');
  const [endStatus, setEndStatus] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const offset = useRef(0);
  const buffer = useRef('');
  const listener = useRef(onStatus);
  useEffect(() => {
    listener.current = onStatus;
  }, [onStatus]);

  // A new job starts from nothing.
  useEffect(() => {
    offset.current = 0;
    buffer.current = '';
    setText('');
    setTrimmed(false);
  }, [jobId, workspaceId]);

  useEffect(() => {
    const controller = new AbortController();
    setPhase('following');
    setError(null);
    void (async () => {
      try {
        for await (const event of api.followJob(jobId, workspaceId, { offset: offset.current, signal: controller.signal })) {
          if (controller.signal.aborted) return;
          if (event.type === 'log') {
            offset.current = event.offset;
            buffer.current += event.text;
            if (buffer.current.length > MAX_CHARS) {
              buffer.current = buffer.current.slice(buffer.current.length - MAX_CHARS);
              setTrimmed(true);
            }
            setText(buffer.current);
          } else if (event.type === 'status') {
            listener.current(event.status);
          } else {
            setEndStatus(event.status);
            setPhase('ended');
            listener.current(event.status);
          }
        }
      } catch (e) {
        if (controller.signal.aborted) return;
        setError(e);
        setPhase('failed');
      }
    })();
    return () => controller.abort();
  }, [api, jobId, workspaceId, attempt]);

  return { text, trimmed, phase, endStatus, error, retry: () => setAttempt((n) => n + 1) };
}
