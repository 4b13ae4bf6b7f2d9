// The public client's default job on a 2-CPU server with no extra settings (issue 41 §2): a Nextflow
// job of c5.xlarge (4 vCPUs, 8 GiB) is accepted, runs capped to what the executor has, completes,
// and its log and document say so; it is priced as c5.xlarge.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '@runyard/server';
import { printedValue } from '../../../../test/support/printed-value.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { freshDatabaseUrl } from '../../../../test/support/database.js';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { jsonApi, jsonApiOk } from '../../../../test/support/json-api.js';
import { nextflowHomeEnv } from '../../../../test/support/nextflow-home.js';
import { FIXTURE_BIN, waitFor } from './helpers.js';

describe('the public client default job on a 2-CPU server', { timeout: 300_000 }, () => {
  let server: RunningServer;
  let mirror: GitMirror;
  let apikey = '';
  let ws = '';
  const api = jsonApiOk(
    jsonApi(
      () => server.url,
      () => apikey,
    ),
  );

  before(async () => {
    mirror = createGitMirror();
    mirror.create('acme/pipe', { files: { 'main.nf': 'workflow {}\n', 'nextflow.config': '' } });
    const lines: string[] = [];
    server = await startServer(
      {
        RUNYARD_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'runyard-small-')),
        RUNYARD_PORT: '0',
        RUNYARD_DATABASE_URL: await freshDatabaseUrl(),
        RUNYARD_LOG_LEVEL: 'silent',
        RUNYARD_TASK_PATH: `${FIXTURE_BIN}:/usr/local/bin:/usr/bin:/bin`,
        RUNYARD_SCHEDULER_POLL_MS: '100',
        RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites),
        // A 2-CPU machine (this one's size, whatever the host running the test).
        RUNYARD_LOCAL_CPUS: '2',
        RUNYARD_LOCAL_MEMORY_GIB: '8',
        ...nextflowHomeEnv(),
      },
      (line) => lines.push(line),
    );
    apikey = printedValue(lines, 'API key')!;
    ws = printedValue(lines, 'Workspace id')!;
  });
  after(async () => {
    await server.close();
    mirror.remove();
  });

  it('runs capped, completes, and its log and document say so', async () => {
    const projectId = (await api('POST', `/api/v1/projects?teamId=${ws}`, { name: 'demo' }))._id;
    const workflow = (
      await api('POST', `/api/v2/workflows?teamId=${ws}`, {
        name: 'pipe',
        repository: { url: 'https://github.com/acme/pipe', platform: 'github' },
      })
    )._id;
    // cloudos-cli's job run body with its defaults (wire-api §2.3): c5.xlarge, batch on aws.
    const { jobId } = await api('POST', `/api/v2/jobs?teamId=${ws}`, {
      parameters: [],
      project: projectId,
      workflow,
      name: 'new_job',
      resumable: false,
      saveProcessLogs: true,
      executionPlatform: 'aws',
      hpc: null,
      storageSizeInGb: 500,
      execution: { computeCostLimit: 30, optim: 'test' },
      instanceType: 'c5.xlarge',
      usesFusionFileSystem: false,
      accelerateSavingResults: false,
      nextflowVersion: '22.10.8',
      masterInstance: { requestedInstance: { type: 'c5.xlarge' } },
      batch: { enabled: true },
    });
    await waitFor(
      'the job to end',
      async () => ['completed', 'failed', 'aborted'].includes((await api('GET', `/api/v1/jobs/${jobId}?teamId=${ws}`)).status) || undefined,
    );
    const doc = await api('GET', `/api/v1/jobs/${jobId}?teamId=${ws}`);
    const log = readFileSync(path.join(jobPaths(server.config.dataDir, ws, jobId).logs, 'stdout.txt'), 'utf8');
    assert.equal(doc.status, 'completed', log);
    const note =
      'asked for c5.xlarge: 4 vCPUs, 8 GiB; this server gives at most 2 vCPUs, 8 GiB (RUNYARD_LOCAL_CPUS, RUNYARD_LOCAL_MEMORY_GIB), so it runs with 2 vCPUs, 8 GiB and costs what c5.xlarge costs.';
    assert.ok(log.startsWith(`Runyard: ${note}\n`), log);
    assert.equal(doc.resourcesNote, note);
    assert.deepEqual([doc.masterInstance.usedInstance.vcpus, doc.masterInstance.usedInstance.memoryGiB], [2, 8]);
    assert.equal(doc.instanceType, 'c5.xlarge');
  });
});
