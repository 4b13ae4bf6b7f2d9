// A server with what jobs need, reached through a recording proxy: a project, a container workflow and a
// Nextflow workflow imported from a local git mirror (branch `dev`, tag `v1.0`). Helpers set a job's status
// in the database to stand in for the scheduler.
import { RunyardClient } from '@runyard/client';
import { createGitMirror, type GitMirror } from '../../../test/support/git-repos.js';
import { startRecordingProxy, type RecordingProxy } from '../../../test/support/recording-proxy.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';

export interface JobWorld {
  s: TestServer;
  proxy: RecordingProxy;
  client: RunyardClient;
  mirror: GitMirror;
  ws: string;
  projectId: string;
  bashWorkflowId: string;
  nextflowWorkflowId: string;
  /** Commit sha of each branch of acme/rnatoy. */
  heads: Record<string, string>;
  /** `METHOD /path?query` of every request since the proxy had `n` requests. */
  since(n: number): string[];
  /** Sets a job's status (and start/end times as a scheduler would) in the database. */
  setStatus(jobId: string, status: string, extra?: { resume_work_dir?: string | null; queue_id?: string }): Promise<void>;
  close(): Promise<void>;
}

export async function jobWorld(): Promise<JobWorld> {
  const mirror = createGitMirror();
  const repo = mirror.create('acme/rnatoy', {
    files: { 'main.nf': 'workflow { println params.reads }\n', 'nextflow.config': 'params.reads = "x"\n' },
    branches: { dev: { 'dev.txt': 'dev' } },
    tags: { 'v1.0': { message: 'release' } },
  });
  const s = await startTestServer({ listen: true, env: { RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites) } });
  const proxy = await startRecordingProxy(s.url);
  const client = new RunyardClient({ platformUrl: proxy.url, apikey: s.admin.apikey });
  const ws = s.admin.workspaceId;
  const projectId = await client.createProject(ws, 'demo');
  const bash = await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
  const nextflowWorkflowId = await client.importWorkflow(ws, { workflowUrl: 'https://github.com/acme/rnatoy', workflowName: 'rnatoy' });
  return {
    s,
    proxy,
    client,
    mirror,
    ws,
    projectId,
    bashWorkflowId: bash._id,
    nextflowWorkflowId,
    heads: repo.heads,
    since: (n) => proxy.requests.slice(n).map((r) => `${r.method} ${r.url}`),
    async setStatus(jobId, status, extra = {}) {
      const now = new Date().toISOString();
      const row = await s.store.db.selectFrom('jobs').select('start_time').where('id', '=', jobId).executeTakeFirstOrThrow();
      const started = ['running', 'completed', 'failed', 'aborting'].includes(status);
      const finished = ['completed', 'failed', 'aborted'].includes(status);
      await s.store.db
        .updateTable('jobs')
        .set({
          status,
          updated_at: now,
          ...(started && !row.start_time && { start_time: now }),
          ...(finished && { end_time: now }),
          ...extra,
        })
        .where('id', '=', jobId)
        .execute();
    },
    async close() {
      client.close();
      await proxy.close();
      await s.close();
      mirror.remove();
    },
  };
}
