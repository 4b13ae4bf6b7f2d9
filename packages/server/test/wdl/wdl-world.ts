import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { jsonApi, jsonApiOk, type JsonApi } from '../../../../test/support/json-api.js';
import { startRunningServer, type RunningServer } from '../../../../test/support/running-server.js';
import { jobPaths, type JobPaths } from '../../src/scheduler/job-paths.js';
import { waitFor } from '../scheduler/helpers.js';
import { HELLO_WDL } from '../../../../test/support/wdl-workflows.js';

const ENDED = ['completed', 'failed', 'aborted'];

export interface WdlWorld {
  s: RunningServer;
  ws: string;
  api: JsonApi;
  ok: ReturnType<typeof jsonApiOk>;
  mirror: GitMirror;
  projectId: string;
  workflowId: string;
  /** The body the public client sends for a WDL job (wire-api §2.2, skeleton 5), with these parameters. */
  body(parameters: Record<string, string>, extra?: Record<string, unknown>): Promise<Record<string, unknown>>;
  ended(id: string): Promise<any>;
  /** Resolves once the job runs; fails at once if it ends first (what an abort test needs to know). */
  running(id: string): Promise<void>;
  paths(id: string): JobPaths;
  read(id: string, dir: 'logs' | 'results' | 'work', file: string): string;
  close(): Promise<void>;
}

export async function startWdlWorld(env: NodeJS.ProcessEnv = {}): Promise<WdlWorld> {
  const mirror = createGitMirror();
  mirror.create('acme/hello-wdl', { files: { 'hello.wdl': HELLO_WDL, 'README.md': 'two calls\n' } });
  const s = await startRunningServer({ RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites), ...env });
  const ws = s.admin.workspaceId;
  const api = jsonApi(
    () => s.url,
    () => s.admin.apikey,
  );
  const ok = jsonApiOk(api);
  const projectId = (await ok('POST', `/api/v1/projects?teamId=${ws}`, { name: 'wdl-demo' }))._id;
  const workflowId = (
    await ok('POST', `/api/v1/workflows?teamId=${ws}`, {
      name: 'hello-wdl',
      workflowType: 'wdl',
      mainFile: 'hello.wdl',
      repository: { url: 'https://github.com/acme/hello-wdl', platform: 'github' },
    })
  )._id;
  const paths = (id: string) => jobPaths(s.config.dataDir, ws, id);
  return {
    s,
    ws,
    api,
    ok,
    mirror,
    projectId,
    workflowId,
    async body(parameters, extra = {}) {
      const cromwell = await ok('GET', `/api/v1/cromwell?teamId=${ws}`);
      return {
        parameters: Object.entries(parameters).map(([name, textValue]) => ({ prefix: '', name, parameterKind: 'textValue', textValue })),
        project: projectId,
        workflow: workflowId,
        name: 'hello',
        resumable: true,
        saveProcessLogs: true,
        executionPlatform: 'aws',
        hpc: '660fae20f93358ad61e0104b',
        storageSizeInGb: 500,
        execution: { computeCostLimit: 30, optim: 'test' },
        instanceType: 'c5.xlarge',
        usesFusionFileSystem: false,
        accelerateSavingResults: false,
        nextflowVersion: '24.04.4',
        masterInstance: { requestedInstance: { type: 'c5.xlarge' } },
        batch: { enabled: true },
        cromwellCloudResources: cromwell._id,
        ...extra,
      };
    },
    ended: (id) =>
      waitFor(
        `job ${id} to end`,
        async () => {
          const job = await ok('GET', `/api/v1/jobs/${id}?teamId=${ws}`);
          return ENDED.includes(job.status) ? job : undefined;
        },
        240_000,
      ),
    running: async (id) => {
      await waitFor(
        `job ${id} to run`,
        async () => {
          const job = await ok('GET', `/api/v1/jobs/${id}?teamId=${ws}`);
          assert.ok(!ENDED.includes(job.status), `job ${id} ended before it was seen running: ${job.status} ${job.statusMessage ?? ''}`);
          return job.status === 'running' ? true : undefined;
        },
        120_000,
      );
    },
    paths,
    read: (id, dir, file) => readFileSync(path.join(paths(id)[dir], file), 'utf8'),
    async close() {
      await s.close();
      mirror.remove();
    },
  };
}
