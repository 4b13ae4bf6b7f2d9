import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '@runyard/server';
import { printedValue } from '../../../../test/support/printed-value.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { TEST_CAPACITY } from '../../../../test/support/capacity.js';
import { TEST_JOB_IMAGES } from '../../../../test/support/job-images.js';
import { freshDatabaseUrl } from '../../../../test/support/database.js';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { jsonApi, jsonApiOk } from '../../../../test/support/json-api.js';
import { nextflowHomeEnv } from '../../../../test/support/nextflow-home.js';
import { FIXTURE_BIN, waitFor } from './helpers.js';

/** The scheduler's poll interval here, the longest allowed: any job done sooner was woken. */
const POLL_MS = 600_000;

/** The whole path through a real server: submit over HTTP, the scheduler started by main.ts runs the job, status over HTTP. */
describe('scheduler in the server: submit, run, abort over HTTP', { timeout: 300_000 }, () => {
  let server: RunningServer;
  let mirror: GitMirror;
  let apikey = '';
  let ws = '';
  let projectId = '';
  const api = jsonApiOk(
    jsonApi(
      () => server.url,
      () => apikey,
    ),
  );
  const jobBody = (workflow: string, extra: Record<string, unknown>) => ({
    project: projectId,
    workflow,
    name: 'http-job',
    parameters: [],
    resumable: false,
    saveProcessLogs: true,
    executionPlatform: 'aws',
    storageSizeInGb: 10,
    execution: { computeCostLimit: -1 },
    batch: { enabled: false },
    ...extra,
  });
  const statusOf = async (id: string) => (await api('GET', `/api/v1/jobs/${id}?teamId=${ws}`)).status as string;

  before(async () => {
    mirror = createGitMirror();
    mirror.create('acme/pipe', { files: { 'main.nf': 'workflow {}\n', 'nextflow.config': '' } });
    const lines: string[] = [];
    server = await startServer(
      {
        RUNYARD_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'runyard-srv-')),
        RUNYARD_PORT: '0',
        RUNYARD_DATABASE_URL: await freshDatabaseUrl(),
        RUNYARD_LOG_LEVEL: 'silent',
        RUNYARD_TASK_PATH: `${FIXTURE_BIN}:${process.env.PATH}`,
        RUNYARD_SCHEDULER_POLL_MS: String(POLL_MS),
        RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites),
        ...TEST_CAPACITY,
        ...TEST_JOB_IMAGES,
        ...nextflowHomeEnv(),
      },
      (line) => lines.push(line),
    );
    apikey = printedValue(lines, 'API key')!;
    ws = printedValue(lines, 'Workspace id')!;
    projectId = (await api('POST', `/api/v1/projects?teamId=${ws}`, { name: 'demo' }))._id;
  });
  after(async () => {
    await server.close();
    mirror.remove();
  });

  it('a submitted bash job wakes the scheduler at once and completes, its output in its logs', async () => {
    const wf = (
      await api('POST', '/api/runyard/admin/workflows/docker', { workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' })
    )._id;
    const started = Date.now();
    const { jobId } = await api(
      'POST',
      `/api/v2/jobs?teamId=${ws}`,
      jobBody(wf, { command: 'echo "hi $1"', parameters: [{ prefix: '', name: 'x', parameterKind: 'textValue', textValue: 'v' }] }),
    );
    await waitFor('the job to complete', async () => (await statusOf(jobId)) === 'completed');
    // Only wake() explains a job done before the first poll.
    assert.ok(Date.now() - started < POLL_MS);
    const logs = jobPaths(server.config.dataDir, ws, jobId).logs;
    // Appended to the command, and only there: its own $1 is empty (CloudOS's convention).
    assert.match(readFileSync(path.join(logs, 'stdout.txt'), 'utf8'), /\nhi  x v\n$/);
  });

  it('a nextflow job imported from git runs with the fixture', async () => {
    const wf = (
      await api('POST', `/api/v2/workflows?teamId=${ws}`, {
        name: 'pipe',
        repository: { url: 'https://github.com/acme/pipe', platform: 'github' },
      })
    )._id;
    const { jobId } = await api('POST', `/api/v2/jobs?teamId=${ws}`, jobBody(wf, { nextflowVersion: '22.10.8' }));
    await waitFor('the job to complete', async () => (await statusOf(jobId)) === 'completed');
    const paths = jobPaths(server.config.dataDir, ws, jobId);
    assert.match(readFileSync(path.join(paths.logs, 'stdout.txt'), 'utf8'), /version 22\.10\.8/);
    assert.ok(readFileSync(path.join(paths.results, 'results', 'result.txt'), 'utf8').length > 0);
  });

  it('an abort with force stops a running job at once', async () => {
    const wf = (
      await api('POST', '/api/runyard/admin/workflows/docker', { workspaceId: ws, name: 'sleeper', containerName: 'library/ubuntu:22.04' })
    )._id;
    const { jobId } = await api('POST', `/api/v2/jobs?teamId=${ws}`, jobBody(wf, { command: 'sleep 30' }));
    await waitFor('the job to run', async () => (await statusOf(jobId)) === 'running');
    await api('PUT', `/api/v2/jobs/${jobId}/abort?teamId=${ws}&forceAbort=true`);
    // Aborted, not completed: stopped long before its sleep would have ended, however slow the machine.
    await waitFor('the job to be aborted', async () => (await statusOf(jobId)) === 'aborted', 120_000);
  });
});
