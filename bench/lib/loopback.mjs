// Kept apart from jobs.mjs, which loads the whole server: a client child that imported it spent
// 1.3 s of CPU on that alone (bench/cpu-per-job.mjs counted it as the client's).

/** Throws unless url is a loopback address: benchmarks never send load elsewhere. */
export function assertLoopback(url) {
  const { hostname } = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(hostname)) throw new Error(`benchmarks target loopback only, not ${hostname}`);
}
