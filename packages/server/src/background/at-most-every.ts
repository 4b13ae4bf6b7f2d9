/**
 * A call of fn now, unless fn ran less than `ms` ago: then one call at the end of that interval,
 * however many came meanwhile. Under load every submission wakes the scheduler's thread (a
 * message to another thread each); one message a millisecond wakes it as well, and the first
 * call after a quiet spell is not delayed. now: the clock (a test's own).
 */
export function atMostEveryMs(ms: number, fn: () => void, now: () => number = () => performance.now()): () => void {
  let last = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    timer = undefined;
    last = now();
    fn();
  };
  return () => {
    if (timer) return;
    const wait = last + ms - now();
    if (wait <= 0) return run();
    timer = setTimeout(run, wait);
    timer.unref();
  };
}
