import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '@runyard/server';
import { startSlurmTestServer } from '../../../../test/support/slurm-server.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { jsonApi, jsonApiOk } from '../../../../test/support/json-api.js';
import { registryToolsMissing } from '../../../../test/support/registry.js';
import { uploadFile } from '../../../../test/support/upload.js';
import { sharedDirectory, slurmClusterUp } from '../../../../test/support/slurm-cluster.js';
import { startImageFixture, type ImageFixture } from '../images/fixture.js';
import { waitFor } from '../scheduler/helpers.js';

const skip = registryToolsMissing() ?? false;

/**
 * Bash jobs of docker workflows on the real Slurm cluster run in their images, as on the local
 * executor: the server pulls the image from a real registry into the cache on the cluster's shared
 * directory, and every task (each row of an array) has its unpacked root, read-only, in the sandbox.
 */
describe('container jobs run in their image on a Slurm cluster', { skip, timeout: 600_000 }, () => {
  let server: RunningServer;
  let fixture: ImageFixture;
  let apikey = '';
  let ws = '';
  let projectId = '';
  let hpc = '';
  const api = jsonApiOk(
    jsonApi(
      () => server.url,
      () => apikey,
    ),
  );
  const ended = (id: string) =>
    waitFor(
      `job ${id} to end`,
      async () => {
        const doc = await api('GET', `/api/v1/jobs/${id}?teamId=${ws}`);
        return ['completed', 'failed', 'aborted'].includes(doc.status) ? doc : undefined;
      },
      240_000,
    );
  const logOf = (id: string) => readFileSync(path.join(jobPaths(server.config.dataDir, ws, id).logs, 'stdout.txt'), 'utf8');

  let workflows = 0;
  /** Submits a bash job of a new docker workflow of `image` to the cluster; answers its id. */
  const submit = async (image: string, command: string, extra: Record<string, unknown> = {}) => {
    const body = { workspaceId: ws, name: `wf-${++workflows}`, containerName: image };
    const workflow = (await api('POST', '/api/runyard/admin/workflows/docker', body))._id as string;
    const job = { project: projectId, workflow, name: 'slurm-image', command, parameters: [], executionPlatform: 'hpc', hpc };
    return (await api('POST', `/api/v2/jobs?teamId=${ws}`, { ...job, ...extra })).jobId as string;
  };

  before(async () => {
    slurmClusterUp();
    fixture = await startImageFixture();
    const shared = sharedDirectory();
    ({ server, apikey, ws } = await startSlurmTestServer(shared, {
      RUNYARD_JOB_IMAGES: 'pull',
      RUNYARD_INSECURE_REGISTRIES: fixture.registry.host,
    }));
    projectId = (await api('POST', `/api/v1/projects?teamId=${ws}`, { name: 'hpc-images' }))._id;
    hpc = (await api('POST', '/api/runyard/admin/hpc', { name: 'dev', partitions: ['debug'], sharedDirectory: shared })).id;
  });
  after(async () => {
    await server?.close();
    await fixture?.stop();
  });

  it("a job in image a runs image a's tool on Slurm, not the host's; the log names the digest", async () => {
    const image = `${fixture.registry.host}/t/a:1`;
    const port = new URL(server.url).port;
    const id = await submit(
      image,
      'hello-a; echo "slurm job $SLURM_JOB_ID"; test -e /usr/bin/node && echo HOST-NODE; touch /usr/x 2>/dev/null || echo "root is read-only"; ' +
        `echo "uid $(id -u)"; (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo REACHED-SERVER || echo "server unreachable"`,
    );
    const job = await ended(id);
    const log = logOf(id);
    assert.equal(job.status, 'completed', `${job.statusMessage}\n${log}`);
    assert.match(job.hpcCluster.slurmJobId, /^\d+$/);
    assert.match(log, /hello from image a\n/);
    assert.match(log, new RegExp(`slurm job ${job.hpcCluster.slurmJobId}\n`));
    assert.doesNotMatch(log, /HOST-NODE/);
    assert.match(log, /root is read-only\n/);
    assert.ok(log.includes(`Runyard: this job runs in the image ${image} (${fixture.digests.get('t/a:1')!})`), log);
    // Confined as on the local executor: a root server's task is RUNYARD_TASK_UID (65534 here), in a network of its own.
    if (process.getuid?.() === 0) assert.match(log, /\nuid 65534\n/);
    assert.match(log, /server unreachable\n/);
  });

  it("honours the image's config on the node: its PATH and variables in the task, its entrypoint", async () => {
    const id = await submit(`${fixture.registry.host}/t/configured:1`, 'echo "FOO=$FOO PATH=$PATH"; tool-on-image-path');
    const job = await ended(id);
    const log = logOf(id);
    assert.equal(job.status, 'completed', `${job.statusMessage}\n${log}`);
    // PATH reaches the task through bwrap, never the node's programs before it (image-on-node.ts).
    assert.match(log, /FOO=from-image PATH=\/opt\/tool\/bin:\/usr\/local\/bin:\/usr\/bin:\/bin\n/);
    assert.match(log, /tool on the image PATH\n/);
    assert.match(log, /entrypoint ran with: bash -c /);
  });

  it('the same command in image b exits 127: image b has no hello-a', async () => {
    const id = await submit(`${fixture.registry.host}/t/b:1`, 'hello-a');
    const job = await ended(id);
    assert.equal(job.status, 'failed', logOf(id));
    assert.equal(job.exitCode, 127, logOf(id));
    assert.match(logOf(id), /hello-a: command not found/);
    assert.ok(logOf(id).includes(fixture.digests.get('t/b:1')!), logOf(id));
  });

  it('an array job of 20 rows runs each row in the image, as a Slurm array', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => `s${i}`);
    const fileId = await uploadFile(server.url, apikey, { workspaceId: ws, projectId }, 'rows.csv', `sample\n${rows.join('\n')}\n`);
    const id = await submit(`${fixture.registry.host}/t/a:1`, 'echo "row $RUNYARD_ARRAY_INDEX $RUNYARD_PARAM_SAMPLE: $(hello-a)"', {
      arrayFile: { dataItem: { kind: 'File', item: fileId }, separator: ',' },
      parameters: [{ prefix: '--', name: 'sample', parameterKind: 'arrayFileColumn', columnName: 'sample', columnIndex: 0 }],
      resourceRequirements: { cpu: 1, ram: 1 },
    });
    const job = await ended(id);
    const log = logOf(id);
    assert.equal(job.status, 'completed', `${job.statusMessage}\n${log}`);
    assert.match(job.hpcCluster.slurmJobId, /^\d+$/);
    assert.deepEqual(job.arrayTasks, { total: 20, queued: 0, running: 0, completed: 20, failed: 0, atOnce: job.arrayTasks.atOnce });
    for (let i = 0; i < 20; i++) assert.ok(log.includes(`row ${i} s${i}: hello from image a --sample s${i}\n`), log);
    assert.ok(log.includes(fixture.digests.get('t/a:1')!), log);
  });
});
