import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { s3BackendEnv, startS3Server, type S3TestServer } from '../../../../test/support/s3-server.js';
import { ioWorld, resultsOf, type IoWorld } from './world.js';

/** What a task's environment may hold: built from scratch by the engine (engines/task-env.ts, nextflow-home.ts, nextflow-s3.ts), and PWD, which bwrap sets with --chdir. */
const TASK_ENV = new Set([
  'PATH',
  'HOME',
  'PWD',
  'RUNYARD_JOB_ID',
  'RUNYARD_RESULTS_DIR',
  'NXF_HOME',
  'NXF_LAUNCHER',
  'NXF_SECRETS_FILE',
  'NXF_VER',
]);
const AWS_ENV = ['AWS_ACCESS_KEY_ID', 'AWS_DEFAULT_REGION', 'AWS_REGION', 'AWS_SECRET_ACCESS_KEY'];

describe('Nextflow tasks on an S3 store (s3rver)', { timeout: 300_000 }, () => {
  let s3: S3TestServer;
  let w: IoWorld;
  before(async () => {
    s3 = await startS3Server();
    // s3rver has one key pair, the storage's: the operator passes it on (RUNYARD_S3_TASK_CREDENTIALS=storage).
    w = await ioWorld({ ...s3BackendEnv(s3), RUNYARD_S3_TASK_CREDENTIALS: 'storage', RUNYARD_NEXTFLOW_VERSIONS: '' });
  });
  after(async () => {
    await w?.close();
    await s3?.stop();
  });

  it("gets the store's endpoint, region and keys for s3:// paths, and nothing of the server's environment", async () => {
    const doc = await w.nextflow([]);
    assert.equal(doc.status, 'completed', JSON.stringify(doc));
    const result = JSON.parse(await w.read(`${resultsOf(doc).prefix}/results/result.txt`));
    assert.deepEqual(result.aws, { endpoint: s3.endpoint, region: s3.region, accessKeyId: s3.accessKeyId });
    const names: string[] = result.envNames;
    assert.deepEqual(
      names.filter((n) => n.startsWith('AWS_')),
      AWS_ENV,
    );
    const other = names.filter((n) => !TASK_ENV.has(n) && !AWS_ENV.includes(n));
    assert.deepEqual(other, [], 'variables the engine did not set');
  });

  it('refuses a Nextflow version that is not installed, naming the installed ones; the job document shows the version used', async () => {
    const refused = await w.submitNextflow([], { nextflowVersion: '21.04.0' });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.json().message, /Nextflow "21\.04\.0" is not installed on this server \(installed: 22\.10\.8, .*25\.10\.4\)/);
    const accepted = await w.submitNextflow([], { nextflowVersion: '24.04.4' });
    assert.equal(accepted.statusCode, 200, accepted.body);
    const doc = await w.finished(accepted.json().jobId);
    assert.equal(doc.nextflowVersion, '24.04.4');
    const result = JSON.parse(await w.read(`${resultsOf(doc).prefix}/results/result.txt`));
    assert.equal(result.version, '24.04.4');
  });
});
