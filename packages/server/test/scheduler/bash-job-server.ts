import { readFileSync } from 'node:fs';
import path from 'node:path';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { jsonApi, jsonApiOk, type JsonApi } from '../../../../test/support/json-api.js';
import { startRunningServer, type RunningServer } from '../../../../test/support/running-server.js';
import { waitFor } from './helpers.js';

/** A running server with a project `demo` and a container workflow `ubuntu`: bash jobs through the API, as a client submits them. */
export interface BashJobServer {
  s: RunningServer;
  ws: string;
  api: JsonApi;
  /** As api, failing the test on a status other than 2xx; answers the body. */
  ok: ReturnType<typeof jsonApiOk>;
  /** Submits a bash job (extra: more body keys, e.g. resourceRequirements or batch) and answers its id. */
  submit(command: string, extra?: Record<string, unknown>): Promise<string>;
  /** The job document once the job ended (completed, failed or aborted). */
  ended(id: string): Promise<any>;
  /** The job's stdout.txt. */
  logOf(id: string): string;
  close(): Promise<void>;
}

export async function startBashJobServer(env: NodeJS.ProcessEnv = {}): Promise<BashJobServer> {
  const s = await startRunningServer(env);
  const ws = s.admin.workspaceId;
  const api = jsonApi(
    () => s.url,
    () => s.admin.apikey,
  );
  const ok = jsonApiOk(api);
  const projectId = (await ok('POST', `/api/v1/projects?teamId=${ws}`, { name: 'demo' }))._id;
  const workflowId = (
    await ok('POST', '/api/runyard/admin/workflows/docker', { workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' })
  )._id;
  return {
    s,
    ws,
    api,
    ok,
    async submit(command, extra = {}) {
      const body = { project: projectId, workflow: workflowId, name: 'bash', command, parameters: [], executionPlatform: 'aws', ...extra };
      return (await ok('POST', `/api/v2/jobs?teamId=${ws}`, body)).jobId;
    },
    ended: (id) =>
      waitFor(
        `job ${id} to end`,
        async () => {
          const job = await ok('GET', `/api/v1/jobs/${id}?teamId=${ws}`);
          return ['completed', 'failed', 'aborted'].includes(job.status) ? job : undefined;
        },
        240_000,
      ),
    logOf: (id) => readFileSync(path.join(jobPaths(s.config.dataDir, ws, id).logs, 'stdout.txt'), 'utf8'),
    close: () => s.close(),
  };
}
