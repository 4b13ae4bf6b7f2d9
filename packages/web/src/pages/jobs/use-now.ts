import { useEffect, useState } from 'react';

/** The time, ticking every `ms` while `running` (run times of jobs that still run), still otherwise. */
export function useNow(ms: number, running: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms, running]);
  return now;
}
