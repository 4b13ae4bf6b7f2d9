// The S3 blob store against s3rver (an S3-compatible server from npm) on 127.0.0.1.
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { S3BlobStore } from '../../src/storage/s3.js';
import { startS3Server, type S3TestServer } from '../../../../test/support/s3-server.js';
import { blobStoreConformance, bucketName } from './conformance.js';

function s3Store(server: S3TestServer, extra: Partial<ConstructorParameters<typeof S3BlobStore>[0]> = {}): S3BlobStore {
  return new S3BlobStore({
    endpoint: server.endpoint,
    region: server.region,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    forcePathStyle: true,
    partSize: 5 * 1024 * 1024,
    ...extra,
  });
}

blobStoreConformance('s3', async () => {
  const server = await startS3Server();
  const stores: S3BlobStore[] = [];
  const keep = (s: S3BlobStore) => (stores.push(s), s);
  return {
    store: keep(s3Store(server)),
    unreachable: keep(
      new S3BlobStore({
        endpoint: 'http://127.0.0.1:1',
        region: 'us-east-1',
        accessKeyId: 'x',
        secretAccessKey: 'y',
        forcePathStyle: true,
      }),
    ),
    withDeleteBatch: (size) => keep(s3Store(server, { deleteBatchSize: size })),
    async close() {
      for (const s of stores) s.destroy();
      await server.stop();
    },
  };
});

describe('s3 blob store: paging over more than 1000 keys, credentials', { timeout: 300_000 }, () => {
  let server: S3TestServer;
  before(async () => {
    server = await startS3Server();
  });
  after(async () => {
    await server?.stop();
  });

  it('lists 1,203 keys in S3 pages of 1000 and deletes them in batches of 1000', async () => {
    const store = s3Store(server);
    const bucket = bucketName('many');
    await store.ensureBucket(bucket);
    const keys = Array.from({ length: 1203 }, (_, i) => `many/k${String(i).padStart(5, '0')}`);
    for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((k) => store.put(bucket, k, Buffer.from('x'))));
    const all = await store.list(bucket, 'many');
    assert.equal(all.entries.length, 1203);
    assert.equal(all.cursor, undefined);
    assert.deepEqual(
      all.entries.map((e) => e.key),
      keys,
    );
    const first = await store.list(bucket, 'many', { limit: 1100 });
    assert.equal(first.entries.length, 1100);
    assert.ok(first.cursor);
    const rest = await store.list(bucket, 'many', { limit: 1100, cursor: first.cursor });
    assert.deepEqual(
      [...first.entries, ...rest.entries].map((e) => e.key),
      keys,
    );
    assert.equal(rest.cursor, undefined);
    assert.equal(await store.deletePrefix(bucket, 'many'), 1203);
    assert.deepEqual(await store.list(bucket, ''), { entries: [] });
    store.destroy();
  });

  it('never puts the secret key in an error or in the store object', async () => {
    // s3rver checks the access key id of SigV4 requests (not the signature): an unknown id is refused.
    const canary = 'CANARY-secret-0123456789abcdefghij';
    const store = s3Store(server, { accessKeyId: 'UNKNOWNKEYID', secretAccessKey: canary });
    const error = await store.ensureBucket(bucketName('denied')).then(
      () => assert.fail('an unknown access key must be refused'),
      (e: unknown) => e,
    );
    for (const text of [
      String(error),
      JSON.stringify(error),
      inspect(error, { depth: 8 }),
      (error as Error).stack ?? '',
      inspect(store, { depth: 8 }),
    ]) {
      assert.ok(!text.includes(canary), 'the secret appears');
    }
    store.destroy();
  });
});
