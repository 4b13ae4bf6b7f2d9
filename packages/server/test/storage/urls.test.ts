// s3:// and az:// links: building and parsing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { azureUrl, parseAzureUrl, parseS3Url, parseStorageUrl, s3Url, StorageUrlError } from '../../src/storage/urls.js';

const WS = '0123456789abcdef01234567';

describe('storage URLs', () => {
  it('builds s3:// links to objects, folders and buckets', () => {
    assert.equal(s3Url('my-bucket', 'path/to/params.json'), 's3://my-bucket/path/to/params.json');
    assert.equal(s3Url(`runyard-${WS}`, `${WS}/jobs/j1/results/`), `s3://runyard-${WS}/${WS}/jobs/j1/results/`);
    assert.equal(s3Url('my-bucket'), 's3://my-bucket/');
    assert.equal(s3Url('my-bucket', 'a b/ü.txt'), 's3://my-bucket/a b/ü.txt');
    assert.throws(() => s3Url('My_Bucket', 'x'), StorageUrlError);
    assert.throws(() => s3Url('my-bucket', '../x'), StorageUrlError);
    assert.throws(() => s3Url('my-bucket', 'a//b'), StorageUrlError);
  });

  it('parses s3:// links', () => {
    assert.deepEqual(parseS3Url('s3://my-bucket/path/to/params.json'), { kind: 's3', bucket: 'my-bucket', key: 'path/to/params.json' });
    assert.deepEqual(parseS3Url('s3://my-bucket/path/to/'), { kind: 's3', bucket: 'my-bucket', key: 'path/to/' });
    assert.deepEqual(parseS3Url('s3://my-bucket/'), { kind: 's3', bucket: 'my-bucket', key: '' });
    assert.deepEqual(parseS3Url('s3://my-bucket'), { kind: 's3', bucket: 'my-bucket', key: '' });
    assert.deepEqual(parseS3Url('s3://my-bucket/a?b#c'), { kind: 's3', bucket: 'my-bucket', key: 'a?b#c' });
    for (const [bad, message] of [
      ['https://my-bucket/x', /must start with s3:\/\//],
      ['S3://my-bucket/x', /must start with s3:\/\//],
      ['s3://', /has no bucket/],
      ['s3:///x', /has no bucket/],
      ['s3://My-Bucket/x', /bucket name/],
      ['s3://my-bucket//x', /absolute path/],
      ['s3://my-bucket/a/../../x', /".." segment/],
      ['s3://my-bucket/%2e%2e/x', /percent-decoded/],
      ['s3://my-bucket/a\u0000b', /NUL/],
    ] as const) {
      assert.throws(
        () => parseS3Url(bad),
        (e: Error) => e instanceof StorageUrlError && message.test(e.message),
        bad,
      );
    }
  });

  it('builds and parses az:// links', () => {
    const url = azureUrl('testaccount', 'my-container', 'jobs/work/path');
    assert.equal(url, 'az://testaccount.blob.core.windows.net/my-container/jobs/work/path');
    assert.deepEqual(parseAzureUrl(url), { kind: 'azure', account: 'testaccount', container: 'my-container', key: 'jobs/work/path' });
    assert.equal(
      azureUrl(WS, `runyard-${WS}`, `${WS}/jobs/j1/logs/`),
      `az://${WS}.blob.core.windows.net/runyard-${WS}/${WS}/jobs/j1/logs/`,
    );
    assert.deepEqual(parseAzureUrl('az://acct.blob.core.windows.net/cont'), { kind: 'azure', account: 'acct', container: 'cont', key: '' });
    assert.deepEqual(parseAzureUrl('az://acct.blob.core.windows.net/cont/dir/'), {
      kind: 'azure',
      account: 'acct',
      container: 'cont',
      key: 'dir/',
    });
    assert.deepEqual(parseAzureUrl('az://acct.blob.core.windows.net/cont/p/rnatoy_params.json_137531fe-1234'), {
      kind: 'azure',
      account: 'acct',
      container: 'cont',
      key: 'p/rnatoy_params.json_137531fe-1234',
    });
    for (const [bad, message] of [
      ['s3://acct.blob.core.windows.net/c/x', /must start with az:\/\//],
      ['az://acct.blob.core.windows.net/cont/x?sv=2020&sig=abc', /query string/],
      ['az://acct.blob.core.windows.net/cont/x#frag', /fragment/],
      ['az://acct.example.com/cont/x', /host must be/],
      ['az://acct.blob.core.windows.net:443/cont/x', /host must be/],
      ['az://Acct.blob.core.windows.net/cont/x', /storage account name/],
      ['az://ab.blob.core.windows.net/cont/x', /storage account name/],
      ['az://acct.blob.core.windows.net/', /has no container/],
      ['az://acct.blob.core.windows.net', /has no container/],
      ['az://acct.blob.core.windows.net/con.t/x', /container name/],
      ['az://acct.blob.core.windows.net/cont/../x', /".." segment/],
    ] as const) {
      assert.throws(
        () => parseAzureUrl(bad),
        (e: Error) => e instanceof StorageUrlError && message.test(e.message),
        bad,
      );
    }
    assert.throws(() => azureUrl('Bad', 'cont', 'x'), StorageUrlError);
    assert.throws(() => azureUrl('acct', 'a.b', 'x'), StorageUrlError);
  });

  it('parses either form by its scheme', () => {
    assert.equal(parseStorageUrl('s3://b-1/k').kind, 's3');
    assert.equal(parseStorageUrl('az://acct.blob.core.windows.net/c-1/k').kind, 'azure');
    assert.throws(() => parseStorageUrl('gs://b/k'), /s3:\/\/ or az:\/\//);
    assert.throws(() => parseStorageUrl('/local/path'), StorageUrlError);
  });
});
