import assert from 'node:assert/strict';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { startTestServer, type Tenant, type TestServer } from '../../../../test/support/server.js';
import { call } from '../wire.js';

export interface JobWorld {
  s: TestServer;
  mirror: GitMirror;
  ws: string;
  projectId: string;
  bashWorkflowId: string;
  nextflowWorkflowId: string;
  heads: Record<string, string>;
  tagSha: string;
  close(): Promise<void>;
}

/** A server (with `env` on top of the test defaults) with a project, a container workflow and a Nextflow workflow imported from a local mirror. */
export async function jobWorld(env: NodeJS.ProcessEnv = {}): Promise<JobWorld> {
  const mirror = createGitMirror();
  const repo = mirror.create('acme/rnatoy', {
    files: { 'main.nf': 'workflow {}\n', 'nextflow.config': '' },
    branches: { dev: { 'dev.txt': 'dev' } },
    tags: { 'v1.0': { message: 'release' } },
  });
  const s = await startTestServer({ env: { RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites), ...env } });
  const ws = s.admin.workspaceId;
  const project = await call(s, 'POST', `/api/v1/projects?teamId=${ws}`, { name: 'demo' });
  const docker = await call(s, 'POST', '/api/runyard/admin/workflows/docker', {
    workspaceId: ws,
    name: 'ubuntu',
    containerName: 'library/ubuntu:22.04',
  });
  const nf = await call(s, 'POST', `/api/v2/workflows?teamId=${ws}`, { name: 'rnatoy', repository: { url: repo.url, platform: 'github' } });
  assert.equal(nf.statusCode, 200, nf.body);
  return {
    s,
    mirror,
    ws,
    projectId: project.json()._id,
    bashWorkflowId: docker.json()._id,
    nextflowWorkflowId: nf.json()._id,
    heads: repo.heads,
    tagSha: repo.heads.main,
    async close() {
      await s.close();
      mirror.remove();
    },
  };
}

export function bashBody(w: JobWorld, extra: Record<string, unknown> = {}) {
  return {
    parameters: [{ prefix: '--', name: 'greeting', parameterKind: 'textValue', textValue: 'hello' }],
    project: w.projectId,
    workflow: w.bashWorkflowId,
    name: 'bash-job',
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
    command: 'echo hi',
    resourceRequirements: { cpu: 1, ram: 4 },
    ...extra,
  };
}

export function nextflowBody(w: JobWorld, extra: Record<string, unknown> = {}) {
  return {
    parameters: [{ prefix: '--', name: 'reads', parameterKind: 'textValue', textValue: 's3://bucket/reads/*.fq' }],
    project: w.projectId,
    workflow: w.nextflowWorkflowId,
    name: 'nf-job',
    resumable: false,
    saveProcessLogs: true,
    executionPlatform: 'aws',
    hpc: '660fae20f93358ad61e0104b',
    storageSizeInGb: 500,
    execution: { computeCostLimit: 30.0, optim: 'test' },
    instanceType: 'c5.xlarge',
    usesFusionFileSystem: false,
    accelerateSavingResults: false,
    nextflowVersion: '24.04.4',
    masterInstance: { requestedInstance: { type: 'c5.xlarge' } },
    batch: { enabled: true },
    ...extra,
  };
}

export async function submit(w: JobWorld, body: unknown, tenant?: Tenant): Promise<{ statusCode: number; body: string; json(): any }> {
  return call(w.s, 'POST', `/api/v2/jobs?teamId=${tenant?.workspaceId ?? w.ws}`, body, tenant?.apikey ?? w.s.admin.apikey);
}

export async function jobCount(w: JobWorld): Promise<number> {
  const r = await w.s.store.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
