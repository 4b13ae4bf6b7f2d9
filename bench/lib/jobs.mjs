// A Runyard server set up to run bash jobs (B2, B3, B4): the real server from packages/server/dist
// on a loopback port with a temporary data directory, a project and a container workflow, and the
// admin's key. Also the job body that the clients submit, and small HTTP helpers.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer } from '@runyard/server';
import { assertLoopback } from './loopback.mjs';
import { scratchDir } from './scratch.mjs';

/** A JSON request with the admin key; answers the parsed body, throws on a status other than 2xx. */
export async function api(base, apikey, method, route, body) {
  assertLoopback(base);
  const reply = await fetch(base + route, {
    method,
    headers: { apikey, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await reply.text();
  if (reply.status < 200 || reply.status > 299) throw new Error(`${method} ${route}: ${reply.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** The body of a trivial bash job, shaped like the CLI's `bash job` submission. */
export function bashBody({ projectId, workflowId }, command = 'true') {
  return {
    parameters: [{ prefix: '--', name: 'greeting', parameterKind: 'textValue', textValue: 'hello' }],
    project: projectId,
    workflow: workflowId,
    name: 'bench-job',
    resumable: false,
    saveProcessLogs: true,
    executionPlatform: 'aws',
    hpc: null,
    storageSizeInGb: 500,
    execution: { computeCostLimit: 30.0, optim: 'test' },
    instanceType: 'c5.xlarge',
    usesFusionFileSystem: false,
    accelerateSavingResults: false,
    masterInstance: { requestedInstance: { type: 'c5.xlarge' } },
    batch: { enabled: false },
    command,
    resourceRequirements: { cpu: 1, ram: 4 },
  };
}

/** Settings of the bench servers given in the environment (RUNYARD_BENCH_SERVER_<NAME> sets RUNYARD_<NAME>), for experiments. */
function benchSettings() {
  const prefix = 'RUNYARD_BENCH_SERVER_';
  return Object.fromEntries(
    Object.entries(process.env)
      .filter(([k]) => k.startsWith(prefix))
      .map(([k, v]) => [`RUNYARD_${k.slice(prefix.length)}`, v]),
  );
}

/**
 * Starts the server (extra env on top of the bench defaults) and creates a project, a container
 * workflow and, when queueConcurrency is given, a default queue of that concurrency for the jobs.
 * close() stops the server and removes the data directory.
 */
export async function startJobServer({ env = {}, queueConcurrency } = {}) {
  const dataDir = scratchDir('runyard-bench-');
  let server;
  try {
    server = await startServer(
      { ...benchSettings(), RUNYARD_DATA_DIR: dataDir, RUNYARD_HOST: '127.0.0.1', RUNYARD_PORT: '0', RUNYARD_LOG_LEVEL: 'warn', ...env },
      () => {},
    );
    const admin = JSON.parse(readFileSync(path.join(dataDir, 'initial-admin.json'), 'utf8'));
    const ws = admin.workspaceId;
    const call = (method, route, body) => api(server.url, admin.apikey, method, route, body);
    const project = await call('POST', `/api/v1/projects?teamId=${ws}`, { name: 'bench' });
    const workflow = await call('POST', '/api/runyard/admin/workflows/docker', {
      workspaceId: ws,
      name: 'bench-bash',
      containerName: 'library/ubuntu:22.04',
    });
    const queue =
      queueConcurrency === undefined
        ? undefined
        : await call('POST', '/api/runyard/admin/queues', {
            workspaceId: ws,
            name: 'bench',
            concurrency: queueConcurrency,
            isDefault: true,
          });
    return {
      server,
      dataDir,
      url: server.url,
      apikey: admin.apikey,
      ws,
      queue,
      body: (command) => bashBody({ projectId: project._id, workflowId: workflow._id }, command),
      call,
      async close() {
        await server.close();
      },
    };
  } catch (e) {
    await server?.close();
    throw e;
  }
}

/** The job's document once it has ended (completed, failed or aborted), asked for every 100 ms. */
export async function untilEnded(call, workspaceId, jobId) {
  for (;;) {
    const job = await call('GET', `/api/v1/jobs/${jobId}?teamId=${workspaceId}`);
    if (['completed', 'failed', 'aborted'].includes(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;
}
