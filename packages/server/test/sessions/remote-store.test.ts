import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startAzurite, type AzuriteServer } from '../../../../test/support/azurite.js';
import { s3BackendEnv, startS3Server, type S3TestServer } from '../../../../test/support/s3-server.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { waitFor } from '../scheduler/helpers.js';
import { call } from '../wire.js';
import { runningSessionWorld, type RunningSessionWorld } from './running-world.js';
import { JUPYTER_INSTALLED } from './world.js';

/**
 * Jupyter sessions when the workspace's data is in S3 (s3rver) or Azure Blob Storage (Azurite):
 * the home is saved to the store on pause and comes back on resume; on S3 a folder linked at
 * creation is copied in and read from a notebook.
 */
function remoteStoreScenario(name: string, start: () => Promise<{ env: NodeJS.ProcessEnv; stop(): Promise<void> }>, linkFolder: boolean) {
  describe(`a Jupyter session on ${name}`, { skip: !JUPYTER_INSTALLED && 'jupyter is not installed', timeout: 600_000 }, () => {
    let store: { env: NodeJS.ProcessEnv; stop(): Promise<void> };
    let w: RunningSessionWorld;
    before(async () => {
      store = await start();
      w = await runningSessionWorld(store.env);
    });
    after(async () => {
      await w?.close();
      await store?.stop();
    });

    it(`keeps its home in the store across a pause${linkFolder ? ', and reads a folder linked at its creation' : ''}`, async () => {
      const blobs = createBlobStore(w.s.config);
      const bucket = `runyard-${w.ws}`;
      await blobs.ensureBucket(bucket);
      await blobs.put(bucket, `${w.ws}/shared/reads.txt`, Readable.from(['ACGT\n']));
      const created = await w.session(
        { backend: 'regular', name: `on-${name.split(' ')[0]}` },
        undefined,
        linkFolder
          ? { fuseFileSystems: [{ type: 'S3Folder', data: { name: 'shared', s3BucketName: bucket, s3Prefix: `${w.ws}/shared/` } }] }
          : {},
      );
      await w.until(created._id, ['ready']);
      if (linkFolder) {
        const mounted = await waitFor('the linked folder to be mounted', async () => {
          const r = await call(
            w.s,
            'GET',
            `/api/v1/interactive-sessions/${created._id}/fuse-filesystems?teamId=${w.ws}`,
            undefined,
            w.s.admin.apikey,
          );
          assert.equal(r.statusCode, 200, r.body);
          const mount = r.json().fuseFileSystems.find((m: { mountName: string }) => m.mountName === 'shared');
          return mount?.status === 'mounted' || mount?.status === 'failed' ? mount : undefined;
        });
        assert.equal(mounted.status, 'mounted', mounted.errorMessage);
        const read = await w.runCell(created._id, "print(open('mounts/shared/reads.txt').read(), end='')");
        assert.equal(read.stdout, 'ACGT\n');
      }
      assert.equal((await w.runCell(created._id, "open('notes.txt', 'w').write('kept in the store\\n')")).status, 'ok');
      assert.equal((await w.abort(created._id)).statusCode, 204);
      await w.until(created._id, ['aborted']);
      const row = await w.row(created._id);
      assert.ok(row.last_saved_at);
      assert.ok(await blobs.stat(row.home_bucket, `${row.home_prefix}/notes.txt`), 'the home is in the store');

      assert.equal((await w.resume(created._id)).statusCode, 200);
      await w.until(created._id, ['ready']);
      const back = await w.runCell(created._id, "print(open('notes.txt').read(), end='')");
      assert.equal(back.stdout, 'kept in the store\n');
    });
  });
}

remoteStoreScenario(
  'S3 (s3rver)',
  async () => {
    const s3: S3TestServer = await startS3Server();
    return { env: s3BackendEnv(s3), stop: () => s3.stop() };
  },
  true,
);

remoteStoreScenario(
  'Azure Blob Storage (Azurite)',
  async () => {
    const azurite: AzuriteServer = await startAzurite();
    return {
      env: { RUNYARD_STORAGE_BACKEND: 'azure', RUNYARD_AZURE_CONNECTION_STRING: azurite.connectionString },
      stop: () => azurite.stop(),
    };
  },
  false,
);
