import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertError, assertIsoTime } from '../wire.js';
import { explorerWorld, type ExplorerWorld } from './world.js';

describe('storage browsing', () => {
  let w: ExplorerWorld;
  let jobId = '';
  let logs: { s3BucketName: string; s3Prefix: string };
  before(async () => {
    w = await explorerWorld();
    const job = await w.job({ name: 'logs' });
    jobId = job.id;
    logs = job.doc.logs;
    w.writeJobFile(jobId, 'logs/stdout.txt', 'hello\n');
    w.writeJobFile(jobId, 'logs/.nextflow.log', 'nf log');
    w.writeJobFile(jobId, 'logs/trace.txt', 'task_id\n1\n');
    w.writeJobFile(jobId, 'logs/sub/deeper.txt', 'x');
  });
  after(() => w.close());

  const contents = (bucket: string, p: string) =>
    w.get(`/api/v1/data-access/s3/bucket-contents?bucket=${bucket}&path=${encodeURIComponent(p)}&teamId=${w.ws}`);

  it("lists one level of a job's logs as the client reads them (get_job_logs)", async () => {
    const r = await contents(logs.s3BucketName, logs.s3Prefix);
    assert.equal(r.statusCode, 200, r.body);
    const items = r.json().contents as { name: string; path: string; isDir: boolean; size: number; lastModified: string | null }[];
    assert.deepEqual(
      items.map((i) => [i.name, i.path, i.isDir]),
      [
        ['.nextflow.log', `${logs.s3Prefix}/.nextflow.log`, false],
        ['stdout.txt', `${logs.s3Prefix}/stdout.txt`, false],
        ['sub', `${logs.s3Prefix}/sub`, true],
        ['trace.txt', `${logs.s3Prefix}/trace.txt`, false],
      ],
    );
    assert.equal(items[1].size, 6);
    assertIsoTime(items[1].lastModified);
    for (const i of items) assert.deepEqual(Object.keys(i).sort(), ['isDir', 'lastModified', 'name', 'path', 'size']);
    // A trailing slash is the same folder; the job's directory shows logs, results and work once written.
    assert.deepEqual((await contents(logs.s3BucketName, `${logs.s3Prefix}/`)).json(), r.json());
    w.writeJobFile(jobId, 'results/results/a.txt', 'a');
    const job = (await contents(logs.s3BucketName, `${w.ws}/jobs/${jobId}`)).json().contents;
    assert.deepEqual(
      job.map((i: { name: string }) => i.name),
      ['logs', 'results'],
    );
  });

  it('lists the root of the workspace bucket (only its own area) and an empty folder as empty', async () => {
    const root = (await contents(logs.s3BucketName, '')).json().contents;
    assert.deepEqual(
      root.map((i: { path: string; isDir: boolean }) => [i.path, i.isDir]),
      [[w.ws, true]],
    );
    assert.deepEqual((await contents(logs.s3BucketName, `${w.ws}/nothing/here`)).json(), { contents: [] });
  });

  it("refuses buckets the workspace does not own: another workspace's, an unknown one, another area of its own", async () => {
    const other = await w.s.newTenant('eve');
    const theirs = `runyard-${other.workspaceId}`;
    mkdirSync(path.join(w.s.config.dataDir, 'storage', theirs, other.workspaceId), { recursive: true });
    writeFileSync(path.join(w.s.config.dataDir, 'storage', theirs, other.workspaceId, 'secret.txt'), 'secret');
    for (const [bucket, p] of [
      [theirs, ''],
      [theirs, other.workspaceId],
      ['some-other-bucket', 'x'],
      [logs.s3BucketName, other.workspaceId],
      [logs.s3BucketName, `${w.ws}0`],
    ]) {
      const r = await contents(bucket, p);
      assertError(r, 404, 'STORAGE_NOT_FOUND');
      assert.ok(!r.body.includes('secret.txt'));
    }
    // The other workspace cannot list this one's logs either.
    const r = await w.get(
      `/api/v1/data-access/s3/bucket-contents?bucket=${logs.s3BucketName}&path=${logs.s3Prefix}&teamId=${other.workspaceId}`,
      other,
    );
    assertError(r, 404, 'STORAGE_NOT_FOUND');
  });

  it('refuses path traversal in every form (T9)', async () => {
    const base = `${w.ws}/jobs/${jobId}`;
    for (const p of [
      `${base}/../../..`,
      `${base}/..`,
      `../${w.ws}`,
      `${base}/%2e%2e/%2e%2e`,
      `${base}/%252e%252e%252f`,
      `/${base}`,
      `${base}//logs`,
      `${base}/logs\\..\\..`,
      `${base}/./logs`,
    ]) {
      assertError(await contents(logs.s3BucketName, p), 400, 'INVALID_STORAGE_PATH');
    }
    // A NUL is refused at the edge, before any route, like a NUL in any other field.
    assert.match(assertError(await contents(logs.s3BucketName, `${base}/\u0000`), 400, 'VALIDATION_FAILED'), /^query\.path contains a NUL/);
    for (const bucket of ['..', 'a/b', 'UPPER', 'x'])
      assertError(await contents(encodeURIComponent(bucket), base), 400, 'INVALID_STORAGE_PATH');
    // The query string decodes once: %2e%2e%2f arrives as ../ and is refused as such.
    assertError(
      await w.get(`/api/v1/data-access/s3/bucket-contents?bucket=${logs.s3BucketName}&path=${base}/%2e%2e%2f%2e%2e%2f&teamId=${w.ws}`),
      400,
      'INVALID_STORAGE_PATH',
    );
  });

  it('does not follow a symbolic link out of the bucket', async () => {
    const outside = path.join(w.s.config.dataDir, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(path.join(outside, 'passwd'), 'root');
    symlinkSync(outside, path.join(w.s.config.dataDir, 'storage', logs.s3BucketName, w.ws, 'jobs', jobId, 'logs', 'escape'));
    const listed = (await contents(logs.s3BucketName, logs.s3Prefix)).json().contents;
    assert.ok(!listed.some((i: { name: string }) => i.name === 'escape'), 'the link is not listed');
    const r = await contents(logs.s3BucketName, `${logs.s3Prefix}/escape`);
    assert.ok(r.statusCode === 400 || (r.statusCode === 200 && r.json().contents.length === 0), r.body);
    assert.ok(!r.body.includes('passwd'));
  });

  it('answers the Azure lookups as a server whose storage is not Azure', async () => {
    const cloud = await w.get(`/api/v1/cloud/azure?teamId=${w.ws}`);
    assert.equal(cloud.statusCode, 200);
    assert.deepEqual(cloud.json(), {});
    assertError(
      await w.get(
        `/api/v1/data-access/azure/container-contents?containerName=runyard-${w.ws}&storageAccountName=acct&path=${w.ws}/&teamId=${w.ws}`,
      ),
      404,
      'STORAGE_NOT_FOUND',
    );
  });
});

describe('storage downloads (GET /api/runyard/storage/object)', () => {
  let w: ExplorerWorld;
  let file: { s3BucketName: string; s3ObjectKey: string };
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  before(async () => {
    w = await explorerWorld();
    const r = await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${w.ws}&projectId=${w.projectId}&name=${encodeURIComponent('reads 1.bin')}`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: bytes,
    });
    assert.equal(r.statusCode, 201, r.body);
    file = r.json();
  });
  after(() => w.close());

  const download = (range?: string, key = file.s3ObjectKey, bucket = file.s3BucketName, apikey = w.s.admin.apikey, ws = w.ws) =>
    w.s.app.inject({
      method: 'GET',
      url: `/api/runyard/storage/object?bucket=${bucket}&key=${encodeURIComponent(key)}&teamId=${ws}`,
      headers: { apikey, ...(range && { range }) },
    });

  it('answers the whole object with its size, name and that ranges are served', async () => {
    const r = await download();
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.rawPayload, bytes);
    assert.equal(r.headers['content-length'], '1000');
    assert.equal(r.headers['accept-ranges'], 'bytes');
    assert.equal(r.headers['content-type'], 'application/octet-stream');
    assert.equal(r.headers['content-disposition'], "attachment; filename*=UTF-8''reads%201.bin");
    assert.ok(r.headers['last-modified']);
  });

  it('answers 206 with the part a Range asks for: from a byte, between two, the last n; 416 past the end', async () => {
    for (const [range, start, end] of [
      ['bytes=990-', 990, 999],
      ['bytes=10-19', 10, 19],
      ['bytes=-5', 995, 999],
      ['bytes=900-5000', 900, 999],
    ] as const) {
      const r = await download(range);
      assert.equal(r.statusCode, 206, range);
      assert.deepEqual(r.rawPayload, bytes.subarray(start, end + 1), range);
      assert.equal(r.headers['content-range'], `bytes ${start}-${end}/1000`);
      assert.equal(r.headers['content-length'], String(end - start + 1));
    }
    const past = await download('bytes=1000-');
    assertError(past, 416, 'RANGE_NOT_SATISFIABLE');
    // RFC 9110 §15.5.17: a 416 says the object's size.
    assert.equal(past.headers['content-range'], 'bytes */1000');
    // A form this route does not serve (several ranges) gets the whole object.
    assert.equal((await download('bytes=0-1,5-6')).statusCode, 200);
  });

  it('answers an empty object whole (200, no bytes) whatever range is asked, never a server error', async () => {
    const r = await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${w.ws}&projectId=${w.projectId}&name=empty.log`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: Buffer.alloc(0),
    });
    assert.equal(r.statusCode, 201, r.body);
    const empty = r.json();
    for (const range of ['bytes=-2000000', 'bytes=0-', 'bytes=0-10', undefined]) {
      const got = await download(range, empty.s3ObjectKey, empty.s3BucketName);
      assert.equal(got.statusCode, 200, `${range}: ${got.body}`);
      assert.equal(got.rawPayload.length, 0);
      assert.equal(got.headers['content-length'], '0');
    }
  });

  it("answers 404 for another workspace's object, an unknown one, and refuses a key that leaves its folder", async () => {
    const other = await w.s.newTenant('mallory');
    const theirs = await download(undefined, file.s3ObjectKey, file.s3BucketName, other.apikey, other.workspaceId);
    assertError(theirs, 404, 'STORAGE_NOT_FOUND');
    assertError(await download(undefined, `${w.ws}/files/none.bin`), 404, 'STORAGE_NOT_FOUND');
    assertError(await download(undefined, `${w.ws}/../x`), 400, 'INVALID_STORAGE_PATH');
  });
});
