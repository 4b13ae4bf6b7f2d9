import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { convertNextflowToJson, RunyardClient } from '@runyard/client';
import type { RunningServer } from '@runyard/server';
import { startSlurmTestServer } from '../../../../test/support/slurm-server.js';
import { usingPostgres } from '../../../../test/support/database.js';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { jsonApi, jsonApiOk } from '../../../../test/support/json-api.js';
import { readTrace, REAL_PIPELINE, realNextflow, realNextflowSkip, resumeOutcome } from '../../../../test/support/real-nextflow.js';
import { sharedDirectory, slurmClusterUp } from '../../../../test/support/slurm-cluster.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';

const real = realNextflow();

/**
 * A real Nextflow (scripts/install-nextflow.sh) as the head job of a Runyard job on the real Slurm
 * cluster: Runyard submits it as one Slurm job, whose allocation runs its processes too (Nextflow's
 * local executor; docs/nextflow.md, "On a Slurm cluster"). The pipeline's last process fails on a first run; the public
 * client's resume (cloneOrResumeJob, mode resume) runs it again in another Slurm job, in the same
 * work directory on the shared filesystem, and the tasks that had completed are CACHED by hash.
 * Two JVM runs, on the SQLite pass only (the database plays no part in what it proves).
 */
describe('a real Nextflow as a Slurm job: fail, then resume from the cache', { timeout: 600_000 }, () => {
  const skip = realNextflowSkip(usingPostgres());
  let server: RunningServer;
  let mirror: GitMirror;
  let client: RunyardClient;
  let shared = '';
  let apikey = '';
  let ws = '';
  const api = jsonApiOk(
    jsonApi(
      () => server.url,
      () => apikey,
    ),
  );
  /** Waits (bounded) until the job has finished, with the public client: its document. */
  async function ended(id: string) {
    await client.waitJobCompletion(id, ws, { requestInterval: 0.3, waitTime: 300 });
    return api('GET', `/api/v1/jobs/${id}?teamId=${ws}`);
  }
  const pathsOf = (id: string) => jobPaths(server.config.dataDir, ws, id);
  const logOf = (id: string) => readFileSync(path.join(pathsOf(id).logs, 'stdout.txt'), 'utf8');

  before(async () => {
    if (skip || typeof real === 'string') return;
    slurmClusterUp();
    shared = sharedDirectory();
    mirror = createGitMirror();
    mirror.create('acme/split-upper', { files: REAL_PIPELINE });
    ({ server, apikey, ws } = await startSlurmTestServer(shared, {
      RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites),
      RUNYARD_NEXTFLOW_BIN: real.bin,
      RUNYARD_NEXTFLOW_HOME: real.home,
    }));
    client = new RunyardClient({ platformUrl: server.url, apikey });
  });
  after(async () => {
    client?.close();
    await server?.close();
    mirror?.remove();
  });

  it('the head job runs the pipeline in its allocation; resumed, it runs only the failed process', { skip }, async () => {
    const projectId = (await api('POST', `/api/v1/projects?teamId=${ws}`, { name: 'hpc' }))._id;
    const hpc = (await api('POST', '/api/runyard/admin/hpc', { name: 'dev', partitions: ['debug'], sharedDirectory: shared })).id;
    const workflow = (
      await api('POST', `/api/v2/workflows?teamId=${ws}`, {
        name: 'split-upper',
        repository: { url: 'https://github.com/acme/split-upper', platform: 'github' },
      })
    )._id;
    // The body the public client builds for an HPC job (convertNextflowToJson), with the installed version (its own list has none that Maven Central serves).
    const body = convertNextflowToJson({
      projectId,
      workflowId: workflow,
      executionPlatform: 'hpc',
      hpcId: hpc,
      jobName: 'hpc-real-nf',
      parameters: [{ prefix: '--', name: 'failFirst', parameterKind: 'textValue', textValue: 'true' }],
      nextflowProfile: 'small',
      nextflowVersion: (real as { version: string }).version,
      resumable: true,
      costLimit: -1,
    });
    const { jobId } = await api('POST', `/api/v2/jobs?teamId=${ws}`, body);
    const first = await ended(jobId);
    assert.equal(first.status, 'failed', logOf(jobId));
    assert.match(first.hpcCluster.slurmJobId, /^\d+$/);
    const firstTrace = readTrace(path.join(pathsOf(jobId).logs, 'trace.txt'));
    assert.deepEqual(firstTrace.map((t) => `${t.name} ${t.status}`).sort(), [
      'MERGE FAILED',
      'SPLIT (1) COMPLETED',
      'SPLIT (2) COMPLETED',
      'UPPER (1) COMPLETED',
      'UPPER (2) COMPLETED',
    ]);

    const resumedId = await client.cloneOrResumeJob({ workspaceId: ws, sourceJobId: jobId, mode: 'resume' });
    const resumed = await ended(resumedId);
    assert.equal(resumed.status, 'completed', logOf(resumedId));
    assert.notEqual(resumed.hpcCluster.slurmJobId, first.hpcCluster.slurmJobId);
    assert.match(
      execFileSync('scontrol', ['show', 'job', '-o', resumed.hpcCluster.slurmJobId], { encoding: 'utf8' }),
      /JobState=COMPLETED /,
    );
    const outcome = resumeOutcome(firstTrace, readTrace(path.join(pathsOf(resumedId).logs, 'trace.txt')));
    assert.equal(outcome.completedFirst.length, 4);
    assert.deepEqual(outcome.cached, outcome.completedFirst);
    assert.deepEqual(outcome.ran, ['MERGE COMPLETED']);
    assert.equal(readFileSync(path.join(pathsOf(resumedId).results, 'results', 'merged.txt'), 'utf8'), 'HELLO 1\nHELLO 2\n');
  });
});
