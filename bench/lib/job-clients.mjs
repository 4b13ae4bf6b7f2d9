// The clients of B3 and B4. They run in a child process (lib/child.mjs), so that the server under
// test keeps its event loop to itself; they talk to it over loopback HTTP with the admin's key.
// Times are wall-clock milliseconds (Date.now()), comparable with the server's ISO timestamps.
import { setTimeout as sleep } from 'node:timers/promises';
import { request as api } from './http-client.mjs';

const TERMINAL = new Set(['completed', 'failed', 'aborted']);

/**
 * B3: `count` jobs one after the other on an otherwise idle server. For each: the wall clock just
 * before the POST is sent, when its reply arrived, and the job document once the job has ended
 * (polled first after firstPollMs, so that polling does not compete with the launch, then every pollMs).
 */
export async function sequentialJobs({ url, apikey, ws, body, count, firstPollMs = 100, pollMs = 10, gapMs = 20 }) {
  const records = [];
  for (let i = 0; i < count; i++) {
    const submittedAt = Date.now();
    const { jobId } = await api(url, apikey, 'POST', `/api/v2/jobs?teamId=${ws}`, body);
    const acceptedAt = Date.now();
    await sleep(firstPollMs);
    let job;
    for (;;) {
      job = await api(url, apikey, 'GET', `/api/v1/jobs/${jobId}?teamId=${ws}`);
      if (TERMINAL.has(job.status)) break;
      await sleep(pollMs);
    }
    records.push({
      jobId,
      submittedAt,
      acceptedAt,
      status: job.status,
      createdAt: job.createdAt,
      startTime: job.startTime,
      endTime: job.endTime,
    });
    await sleep(gapMs);
  }
  return records;
}

/**
 * B4: submits `count` jobs from `concurrency` keep-alive clients, then polls the job list until
 * every job has ended (or timeoutMs). Answers the wall clock of the first submission, of the last
 * reply, and when the poll first saw every job done, with the final counts and the CPU this client
 * process has spent (milliseconds).
 */
export async function submitAndWait({ url, apikey, ws, body, count, concurrency = 8, pollMs = 50, timeoutMs }) {
  const startedAt = Date.now();
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      await api(url, apikey, 'POST', `/api/v2/jobs?teamId=${ws}`, body);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const submittedAt = Date.now();
  const deadline = startedAt + timeoutMs;
  for (;;) {
    const { paginationMetadata: all } = await api(url, apikey, 'GET', `/api/v2/jobs?teamId=${ws}&limit=1`);
    const { paginationMetadata: failed } = await api(url, apikey, 'GET', `/api/v2/jobs?teamId=${ws}&limit=1&status=failed`);
    const completed = all['Pagination-Completed-Count'];
    if (completed + failed['Pagination-Count'] >= count || Date.now() > deadline) {
      const cpu = process.cpuUsage();
      return {
        startedAt,
        submittedAt,
        doneAt: Date.now(),
        total: all['Pagination-Count'],
        completed,
        failed: failed['Pagination-Count'],
        cpuMs: (cpu.user + cpu.system) / 1000,
      };
    }
    await sleep(pollMs);
  }
}
