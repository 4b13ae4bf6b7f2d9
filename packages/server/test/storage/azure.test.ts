// The Azure blob store against Azurite (from npm), in a child process on 127.0.0.1.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AzureBlobStore } from '../../src/storage/azure.js';
import { startAzurite, type AzuriteServer } from '../../../../test/support/azurite.js';
import { blobStoreConformance, bucketName, text } from './conformance.js';

blobStoreConformance('azure', async () => {
  const server = await startAzurite();
  const options = { accountName: server.accountName, accountKey: server.accountKey, endpoint: server.endpoint };
  return {
    store: new AzureBlobStore(options),
    unreachable: new AzureBlobStore({ ...options, endpoint: 'http://127.0.0.1:1/devstoreaccount1' }),
    withDeleteBatch: (size) => new AzureBlobStore({ ...options, deleteBatchSize: size }),
    close: () => server.stop(),
  };
});

describe('azure blob store: connection string, container names, credentials', { timeout: 300_000 }, () => {
  let server: AzuriteServer;
  before(async () => {
    server = await startAzurite();
  });
  after(async () => {
    await server?.stop();
  });

  it('works from a connection string and names its account', async () => {
    const store = new AzureBlobStore({ connectionString: server.connectionString });
    assert.equal(store.accountName, 'devstoreaccount1');
    const bucket = bucketName('cs');
    await store.ensureBucket(bucket);
    await store.put(bucket, 'a/b.txt', Buffer.from('from a connection string'));
    assert.equal(await text(await store.get(bucket, 'a/b.txt')), 'from a connection string');
  });

  it('refuses container names Azure does not allow (dots, double hyphens) before any I/O', async () => {
    const store = new AzureBlobStore({ accountName: server.accountName, accountKey: server.accountKey, endpoint: 'http://127.0.0.1:1/x' });
    for (const bad of ['with.dot', 'double--hyphen']) {
      await assert.rejects(store.ensureBucket(bad), { name: 'BlobKeyError' });
      await assert.rejects(store.list(bad, ''), { name: 'BlobKeyError' });
    }
  });

  it('never quotes the key or connection string in its errors', async () => {
    const canary = Buffer.from('CANARY-azure-secret-0123456789').toString('base64');
    assert.throws(
      () => new AzureBlobStore({ connectionString: `AccountName=x;AccountKey=${canary};nonsense` }),
      (e: Error) => !e.message.includes(canary) && !String(e.stack).includes(canary),
    );
    const store = new AzureBlobStore({ accountName: server.accountName, accountKey: canary, endpoint: server.endpoint });
    const error = await store.ensureBucket(bucketName('denied')).then(
      () => assert.fail('a wrong key must be refused'),
      (e: unknown) => e,
    );
    assert.ok(!String(error).includes(canary) && !JSON.stringify(error).includes(canary));
  });
});
