// Choosing the blob store from the configuration, and keeping its secrets out of messages (T11).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { LocalBlobStore } from '../../src/storage/local.js';

const AZURE_KEY = Buffer.from('a development key of some length').toString('base64');

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  return assert.fail('the configuration was accepted');
}

describe('blob store registry', () => {
  it('is local by default, under <dataDir>/storage', () => {
    const config = loadConfig({ RUNYARD_DATA_DIR: '/tmp/runyard-registry-test' });
    assert.equal(config.storageBackend, 'local');
    const store = createBlobStore(config);
    assert.equal(store.kind, 'local');
    assert.ok(store instanceof LocalBlobStore);
    assert.equal(store.root, path.join('/tmp/runyard-registry-test', 'storage'));
    assert.equal(typeof store.localPath, 'function');
  });

  it('builds an S3 store from the S3 keys', () => {
    const config = loadConfig({
      RUNYARD_STORAGE_BACKEND: 's3',
      RUNYARD_S3_ENDPOINT: 'http://127.0.0.1:9000',
      RUNYARD_S3_REGION: 'eu-west-1',
      RUNYARD_S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      RUNYARD_S3_SECRET_ACCESS_KEY: 'secret-example',
      RUNYARD_S3_FORCE_PATH_STYLE: 'true',
    });
    assert.equal(config.s3ForcePathStyle, true);
    assert.equal(config.s3Region, 'eu-west-1');
    const store = createBlobStore(config);
    assert.equal(store.kind, 's3');
    assert.equal(store.localPath, undefined);
    assert.equal(loadConfig({ RUNYARD_S3_FORCE_PATH_STYLE: '0' }).s3ForcePathStyle, false);
    assert.equal(loadConfig({}).s3ForcePathStyle, false);
    assert.equal(createBlobStore(loadConfig({ RUNYARD_STORAGE_BACKEND: 's3' })).kind, 's3');
  });

  it('builds an Azure store from a key or a connection string', () => {
    const byKey = createBlobStore(
      loadConfig({ RUNYARD_STORAGE_BACKEND: 'azure', RUNYARD_AZURE_ACCOUNT_NAME: 'acct', RUNYARD_AZURE_ACCOUNT_KEY: AZURE_KEY }),
    );
    assert.equal(byKey.kind, 'azure');
    assert.equal((byKey as unknown as { accountName: string }).accountName, 'acct');
    const byString = createBlobStore(
      loadConfig({
        RUNYARD_STORAGE_BACKEND: 'azure',
        RUNYARD_AZURE_CONNECTION_STRING: `DefaultEndpointsProtocol=http;AccountName=other;AccountKey=${AZURE_KEY};BlobEndpoint=http://127.0.0.1:10000/other;`,
      }),
    );
    assert.equal((byString as unknown as { accountName: string }).accountName, 'other');
  });

  it('reports bad storage settings, and never shows a secret', () => {
    const canary = 'CANARY-0123456789-secret';
    const checks: [NodeJS.ProcessEnv, RegExp][] = [
      [{ RUNYARD_STORAGE_BACKEND: 'gcs' }, /RUNYARD_STORAGE_BACKEND="gcs"/],
      [
        { RUNYARD_STORAGE_BACKEND: 'azure' },
        /needs RUNYARD_AZURE_CONNECTION_STRING, or RUNYARD_AZURE_ACCOUNT_NAME and RUNYARD_AZURE_ACCOUNT_KEY/,
      ],
      [{ RUNYARD_STORAGE_BACKEND: 'azure', RUNYARD_AZURE_ACCOUNT_KEY: canary }, /needs RUNYARD_AZURE_CONNECTION_STRING/],
      [{ RUNYARD_S3_SECRET_ACCESS_KEY: canary }, /RUNYARD_S3_ACCESS_KEY_ID and RUNYARD_S3_SECRET_ACCESS_KEY must be given together/],
      [{ RUNYARD_S3_ENDPOINT: `http://user:${canary}@127.0.0.1:9000` }, /RUNYARD_S3_ENDPOINT must not carry credentials/],
      [{ RUNYARD_AZURE_BLOB_ENDPOINT: `https://acct.blob.core.windows.net/?sig=${canary}` }, /must not have a query string/],
      [{ RUNYARD_S3_ENDPOINT: 'ftp://host' }, /must be an http or https URL/],
      [{ RUNYARD_S3_FORCE_PATH_STYLE: 'maybe' }, /RUNYARD_S3_FORCE_PATH_STYLE="maybe"/],
      [{ RUNYARD_AZURE_ACCOUNT_NAME: 'Not_Valid' }, /RUNYARD_AZURE_ACCOUNT_NAME/],
    ];
    for (const [env, message] of checks) {
      const e = configError(env);
      assert.match(e.message, message);
      assert.ok(!e.message.includes(canary), `the secret appears in: ${e.message}`);
    }
  });

  it('hides the value of a secret key that fails its schema', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-registry-'));
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ s3SecretAccessKey: 987654321123, azureAccountKey: ['CANARY-in-a-list'] }));
    const e = configError({ RUNYARD_CONFIG_FILE: file });
    rmSync(dir, { recursive: true, force: true });
    assert.match(e.message, /config file key "s3SecretAccessKey"=\(hidden\)/);
    assert.match(e.message, /config file key "azureAccountKey"=\(hidden\)/);
    assert.ok(!e.message.includes('987654321123') && !e.message.includes('CANARY'));
  });

  it('does not show S3 credentials when the store is inspected', () => {
    const canary = 'CANARY-inspect-secret-987654321';
    const store = createBlobStore(
      loadConfig({ RUNYARD_STORAGE_BACKEND: 's3', RUNYARD_S3_ACCESS_KEY_ID: 'AKIDEXAMPLE', RUNYARD_S3_SECRET_ACCESS_KEY: canary }),
    );
    assert.ok(!inspect(store, { depth: 10 }).includes(canary));
  });
});
