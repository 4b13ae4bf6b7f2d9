import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../wire.js';
import { explorerWorld, type ExplorerWorld } from './world.js';

// T9: a storage folder or file whose path leads out of its bucket through a symbolic link (on
// the local store, where buckets are directories) is refused when it is created, not on use.
describe('File Explorer: storage items behind a symbolic link out of the bucket', () => {
  let w: ExplorerWorld;
  let data: { _id: string };
  let bucket: string;
  before(async () => {
    w = await explorerWorld();
    data = (await w.datasets()).Data;
    bucket = `runyard-${w.ws}`;
    const outside = path.join(w.s.config.dataDir, 'outside');
    mkdirSync(path.join(outside, 'inner'), { recursive: true });
    writeFileSync(path.join(outside, 'secret.txt'), 'not yours');
    const area = path.join(w.s.config.dataDir, 'storage', bucket, w.ws);
    mkdirSync(path.join(area, 'real'), { recursive: true });
    symlinkSync(outside, path.join(area, 'escape'));
  });
  after(() => w.close());

  const rows = async () => {
    const [folders, files] = await Promise.all(
      (['folders', 'files'] as const).map((t) =>
        w.s.store.db
          .selectFrom(t)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ),
    );
    return { folders: Number(folders.n), files: Number(files.n) };
  };
  const folder = (s3Prefix: string, name: string) =>
    w.req('POST', `/api/v1/folders/s3?teamId=${w.ws}`, { s3BucketName: bucket, s3Prefix, name, parent: { kind: 'Dataset', id: data._id } });

  it('refuses a folder whose prefix is the link, or lies below it, and stores nothing', async () => {
    const before = await rows();
    for (const prefix of [`${w.ws}/escape`, `${w.ws}/escape/`, `${w.ws}/escape/inner`, `${w.ws}/escape/not-there/yet`]) {
      const message = assertError(await folder(prefix, 'escape'), 400, 'INVALID_STORAGE_PATH');
      assert.match(message, /leads outside its bucket/, prefix);
    }
    assert.deepEqual(await rows(), before);
  });

  it('refuses a file behind the link, and stores nothing', async () => {
    const before = await rows();
    const r = await w.req('POST', `/api/v1/files/s3?teamId=${w.ws}`, {
      s3BucketName: bucket,
      s3ObjectKey: `${w.ws}/escape/secret.txt`,
      name: 'secret.txt',
      parent: { kind: 'Dataset', id: data._id },
    });
    assertError(r, 400, 'INVALID_STORAGE_PATH');
    assert.ok(!r.body.includes('not yours'));
    assert.deepEqual(await rows(), before);
  });

  it('still creates a folder on a real directory, or on a prefix that does not exist yet', async () => {
    for (const [prefix, name] of [
      [`${w.ws}/real`, 'real'],
      [`${w.ws}/later/on`, 'later'],
    ]) {
      const r = await folder(prefix, name);
      assert.equal(r.statusCode, 201, r.body);
    }
  });
});
