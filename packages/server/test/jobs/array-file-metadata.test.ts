import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tenant } from '../../../../test/support/server.js';
import { assertError } from '../wire.js';
import { explorerWorld, type ExplorerWorld, type Reply } from '../file-explorer/world.js';

// GET /api/v1/jobs/array-file/metadata (wire-api §2.1): the header of an array file, with the
// object key in standard base64 that the public client sends without URL-encoding.
describe('array-file metadata', () => {
  let w: ExplorerWorld;
  before(async () => {
    w = await explorerWorld();
  });
  after(() => w.close());

  const upload = async (name: string, body: string | Buffer, apikey = w.s.admin.apikey, ws = w.ws, projectId = w.projectId) => {
    const r = (await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${ws}&projectId=${projectId}&name=${encodeURIComponent(name)}`,
      headers: { apikey, 'content-type': 'application/octet-stream' },
      payload: body,
    })) as Reply;
    assert.equal(r.statusCode, 201, r.body);
    return r.json() as { s3BucketName: string; s3ObjectKey: string };
  };
  const b64 = (key: string) => Buffer.from(key, 'utf8').toString('base64');
  /** The URL as the public client formats it: nothing URL-encoded but what it encodes itself. */
  const metadata = (separator: string, file: { s3BucketName: string; s3ObjectKey: string }, tenant?: Tenant) =>
    w.get(
      `/api/v1/jobs/array-file/metadata?separator=${separator}&s3BucketName=${file.s3BucketName}&s3ObjectKey=${b64(file.s3ObjectKey)}&teamId=${tenant?.workspaceId ?? w.ws}`,
      tenant,
    );
  const headers = (r: Reply) => {
    assert.equal(r.statusCode, 200, r.body);
    return r.json().headers as { index: number; name: string }[];
  };

  it('answers the columns of the header row, with their indexes, as the reference shows', async () => {
    const file = await upload('samples.csv', 'id,title,filename,file2name\n1,a,a.fq,b.fq\n');
    const r = await metadata(',', file);
    assert.deepEqual(r.json(), {
      headers: [
        { index: 0, name: 'id' },
        { index: 1, name: 'title' },
        { index: 2, name: 'filename' },
        { index: 3, name: 'file2name' },
      ],
    });
  });

  it('restores a + of the unencoded base64 key (a query parser reads it as a space); an encoded one works too', async () => {
    // The key is <ws>/files/<id>/<name>: 56 bytes before the name, so its first byte ends a base64 group,
    // and "~" (0x7e) ends in the six bits 111110, which base64 writes as "+".
    const file = await upload('~sheet.csv', 'sample,reads\n');
    assert.ok(b64(file.s3ObjectKey).includes('+'), b64(file.s3ObjectKey));
    assert.deepEqual(
      headers(await metadata(',', file)).map((h) => h.name),
      ['sample', 'reads'],
    );
    const encoded = await w.get(
      `/api/v1/jobs/array-file/metadata?separator=%2C&s3BucketName=${file.s3BucketName}&s3ObjectKey=${encodeURIComponent(b64(file.s3ObjectKey))}&teamId=${w.ws}`,
    );
    assert.deepEqual(headers(encoded), headers(await metadata(',', file)));
  });

  it('splits on each separator as the client sends it (; as %3B, space as +, tab, | as %7C)', async () => {
    const cases: [string, string][] = [
      ['%3B', 'a;b c;d\n'],
      ['+', 'a b;c d\n'],
      ['tab', 'a\tb c\td\n'],
      ['%7C', 'a|b c|d\n'],
    ];
    for (const [separator, text] of cases) {
      const file = await upload(`sep-${cases.findIndex((c) => c[0] === separator)}.txt`, text);
      const names = headers(await metadata(separator, file)).map((h) => h.name);
      assert.equal(names.length, 3, `${separator}: ${names.join('/')}`);
      assert.equal(names[0], 'a');
      assert.equal(names[2], 'd');
    }
  });

  it('reads quoted names, a byte-order mark, CRLF line ends and blank first lines', async () => {
    const file = await upload('quoted.csv', '\uFEFF\r\n\r\n"sample, id","say ""hi""",plain\r\nx,y,z\r\n');
    assert.deepEqual(
      headers(await metadata(',', file)).map((h) => h.name),
      ['sample, id', 'say "hi"', 'plain'],
    );
  });

  it('reads only the first line of a large file', async () => {
    const file = await upload('large.csv', Buffer.concat([Buffer.from('id,value\n'), Buffer.alloc(8 * 1024 * 1024, 'x')]));
    assert.deepEqual(
      headers(await metadata(',', file)).map((h) => h.name),
      ['id', 'value'],
    );
  });

  it('refuses an unknown separator, a key that is not base64, an empty file and a header without a line end in 64 KiB', async () => {
    const file = await upload('ok.csv', 'a,b\n');
    const r = await metadata('%23', file);
    assertError(r, 400, 'VALIDATION_FAILED');
    assert.match(r.json().message, /separator "#" is not one of/);
    const notBase64 = await w.get(
      `/api/v1/jobs/array-file/metadata?separator=,&s3BucketName=${file.s3BucketName}&s3ObjectKey=%25%25&teamId=${w.ws}`,
    );
    assertError(notBase64, 400, 'VALIDATION_FAILED');
    assert.match(notBase64.json().message, /not standard base64/);
    assertError(await metadata(',', await upload('empty.csv', '\n\n')), 400, 'VALIDATION_FAILED');
    const long = await metadata(',', await upload('long.csv', Buffer.alloc(100 * 1024, 'a')));
    assertError(long, 400, 'VALIDATION_FAILED');
    assert.match(long.json().message, /no header row: its first line is longer than 64 KiB/);
    const missing = await w.get('/api/v1/jobs/array-file/metadata?separator=,&teamId=' + w.ws);
    assertError(missing, 400, 'VALIDATION_FAILED');
  });

  it("answers 404 for another workspace's file, a bucket it does not own and an object that does not exist", async () => {
    const other = await w.s.newTenant('eve');
    const projectReply = await w.s.app.inject({
      method: 'POST',
      url: `/api/v1/projects?teamId=${other.workspaceId}`,
      headers: { apikey: other.apikey, 'content-type': 'application/json' },
      payload: { name: 'theirs' },
    });
    assert.equal(projectReply.statusCode, 200, projectReply.body);
    const theirs = await upload('secret.csv', 'secret_column\n', other.apikey, other.workspaceId, projectReply.json()._id);
    const r = await metadata(',', theirs);
    assertError(r, 404, 'STORAGE_NOT_FOUND');
    assert.ok(!r.body.includes('secret_column'));
    // Their own workspace reads it.
    assert.deepEqual(
      headers(await metadata(',', theirs, other)).map((h) => h.name),
      ['secret_column'],
    );
    assertError(await metadata(',', { s3BucketName: 'some-other-bucket', s3ObjectKey: `${w.ws}/x.csv` }), 404, 'STORAGE_NOT_FOUND');
    assertError(await metadata(',', { s3BucketName: `runyard-${w.ws}`, s3ObjectKey: `${w.ws}/files/none.csv` }), 404, 'STORAGE_NOT_FOUND');
  });
});
