// storage/beneath.ts: what a task may plant in its directories (links, FIFOs, '..') is never followed out.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  appendBeneath,
  BeneathError,
  chownTreeBeneath,
  diskUsageBeneath,
  listBeneath,
  lstatBeneath,
  openBeneath,
  lstatBeneathSync,
  readBeneath,
  removeBeneath,
  removeEmptyDirBeneath,
  renameBeneath,
  symlinkBeneath,
  walkFilesBeneath,
} from '../../src/storage/beneath.js';

const reason = (r: string) => (e: unknown) => e instanceof BeneathError && e.reason === r;

describe('beneath: the server never follows what a task planted', () => {
  let base: string;
  let root: string;
  let outside: string;
  before(() => {
    base = mkdtempSync(path.join(os.tmpdir(), 'beneath-'));
    root = path.join(base, 'job');
    outside = path.join(base, 'secret');
    mkdirSync(path.join(root, 'logs', 'tasks'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'key'), 'SECRET\n');
    writeFileSync(path.join(root, 'logs', 'stdout.txt'), 'hello\n');
    symlinkSync(path.join(outside, 'key'), path.join(root, 'logs', 'link.txt'));
    symlinkSync(outside, path.join(root, 'dirlink'));
    symlinkSync(path.join(outside, 'new-file'), path.join(root, 'logs', 'dangling.txt'));
    execFileSync('mkfifo', [path.join(root, 'logs', 'fifo.txt')]);
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('reads a regular file, and says null for a missing one', async () => {
    assert.equal((await readBeneath(root, 'logs/stdout.txt'))?.toString(), 'hello\n');
    assert.equal((await readBeneath(root, 'logs/stdout.txt', 2, 2))?.toString(), 'll');
    assert.equal(await readBeneath(root, 'logs/none.txt'), null);
  });

  it('refuses a link as the last name and as a directory on the way', async () => {
    await assert.rejects(readBeneath(root, 'logs/link.txt'), reason('link'));
    await assert.rejects(readBeneath(root, 'dirlink/key'), reason('link'));
    await assert.rejects(listBeneath(root, 'dirlink'), reason('link'));
  });

  it('refuses a FIFO without blocking on it, and a directory as a file', async () => {
    await assert.rejects(readBeneath(root, 'logs/fifo.txt'), reason('special'));
    await assert.rejects(appendBeneath(root, 'logs/fifo.txt', 'x'), reason('special'));
    await assert.rejects(readBeneath(root, 'logs'), reason('special'));
  });

  it('refuses names that climb out or are absolute', async () => {
    for (const rel of ['../secret/key', 'logs/../../secret/key', '/etc/hostname', 'logs//stdout.txt', 'logs/./stdout.txt']) {
      await assert.rejects(readBeneath(root, rel), reason('outside'), rel);
    }
  });

  it('appends only to a regular file: a link, dangling or not, is never written through', async () => {
    await assert.rejects(appendBeneath(root, 'logs/link.txt', 'APPENDED\n'), reason('link'));
    await assert.rejects(appendBeneath(root, 'logs/dangling.txt', 'APPENDED\n'), reason('link'));
    assert.equal(readFileSync(path.join(outside, 'key'), 'utf8'), 'SECRET\n');
    assert.equal(existsSync(path.join(outside, 'new-file')), false);
    await appendBeneath(root, 'logs/stdout.txt', 'more\n');
    await appendBeneath(root, 'logs/made.txt', 'new\n');
    assert.equal(readFileSync(path.join(root, 'logs', 'stdout.txt'), 'utf8'), 'hello\nmore\n');
    assert.equal(readFileSync(path.join(root, 'logs', 'made.txt'), 'utf8'), 'new\n');
  });

  it('never writes a file that has another name (a hard link): the other name may be outside', async () => {
    writeFileSync(path.join(outside, 'shared'), 'SERVER\n');
    linkSync(path.join(outside, 'shared'), path.join(root, 'logs', 'hard.txt'));
    await assert.rejects(appendBeneath(root, 'logs/hard.txt', 'APPENDED\n'), reason('hard-link'));
    assert.equal(readFileSync(path.join(outside, 'shared'), 'utf8'), 'SERVER\n');
    // Reading it shows nothing the task could not read through its own name.
    assert.equal((await readBeneath(root, 'logs/hard.txt'))?.toString(), 'SERVER\n');
  });

  it("describes a link rather than its target, and lists a directory's entries as they are", async () => {
    assert.ok((await lstatBeneath(root, 'logs/link.txt'))?.isSymbolicLink());
    assert.equal(await lstatBeneath(root, 'logs/nothing'), null);
    const names = (await listBeneath(root, 'logs')).map((d) => `${d.name}:${d.isSymbolicLink() ? 'link' : d.isFile() ? 'file' : 'other'}`);
    assert.ok(names.includes('link.txt:link') && names.includes('stdout.txt:file'), names.join());
  });

  it('walks regular files only, naming what it skipped', async () => {
    const skipped: string[] = [];
    const files: string[] = [];
    for await (const f of walkFilesBeneath(root, '', (rel) => skipped.push(rel))) files.push(f.rel);
    assert.ok(files.includes('logs/stdout.txt'));
    assert.ok(!files.some((f) => f.startsWith('dirlink') || f.endsWith('link.txt') || f.endsWith('fifo.txt')), files.join());
    assert.deepEqual(skipped.sort(), ['dirlink', 'logs/dangling.txt', 'logs/fifo.txt', 'logs/link.txt']);
  });

  it('with links inside, follows a link that stays below the root and refuses one that leaves it', async () => {
    const r = path.join(base, 'inside');
    mkdirSync(path.join(r, 'work', 'ab'), { recursive: true });
    mkdirSync(path.join(r, 'results'));
    writeFileSync(path.join(r, 'work', 'ab', 'out.txt'), 'published\n');
    symlinkSync(path.join(r, 'work', 'ab', 'out.txt'), path.join(r, 'results', 'absolute.txt'));
    symlinkSync('../work/ab/out.txt', path.join(r, 'results', 'relative.txt'));
    symlinkSync('../work', path.join(r, 'results', 'workdir'));
    symlinkSync('../../secret/key', path.join(r, 'results', 'climbs.txt'));
    symlinkSync(path.join(outside, 'key'), path.join(r, 'results', 'out.txt'));
    symlinkSync('loop.txt', path.join(r, 'results', 'loop.txt'));
    const inside = { links: 'inside' as const };
    assert.equal((await readBeneath(r, 'results/absolute.txt', 0, 100, inside))?.toString(), 'published\n');
    assert.equal((await readBeneath(r, 'results/relative.txt', 0, 100, inside))?.toString(), 'published\n');
    assert.equal((await readBeneath(r, 'results/workdir/ab/out.txt', 0, 100, inside))?.toString(), 'published\n');
    await assert.rejects(readBeneath(r, 'results/climbs.txt', 0, 100, inside), reason('outside'));
    await assert.rejects(readBeneath(r, 'results/out.txt', 0, 100, inside), reason('outside'));
    await assert.rejects(readBeneath(r, 'results/loop.txt', 0, 100, inside), reason('link'));
    // Without the option, none is followed.
    await assert.rejects(readBeneath(r, 'results/relative.txt'), reason('link'));
    const handle = await openBeneath(r, 'results/absolute.txt', 'read', inside);
    assert.ok((await handle.stat()).isFile());
    await handle.close();
  });

  it('measures the disk a tree takes without following links, each inode once; a missing tree takes none', async () => {
    const tree = mkdtempSync(path.join(base, 'usage-'));
    mkdirSync(path.join(tree, 'a', 'b'), { recursive: true });
    writeFileSync(path.join(tree, 'a', 'b', 'data'), Buffer.alloc(1024 * 1024, 1));
    const bare = await diskUsageBeneath(tree);
    const file = statSync(path.join(tree, 'a', 'b', 'data'));
    assert.ok(bare >= file.blocks * 512 && bare >= 1024 * 1024, String(bare));
    // A second name of the same file, and links to big things outside: no more than the links' own blocks.
    linkSync(path.join(tree, 'a', 'b', 'data'), path.join(tree, 'again'));
    writeFileSync(path.join(outside, 'big'), Buffer.alloc(4 * 1024 * 1024, 1));
    symlinkSync(outside, path.join(tree, 'out'));
    symlinkSync(path.join(outside, 'big'), path.join(tree, 'big'));
    const linked = await diskUsageBeneath(tree);
    assert.ok(linked - bare < 64 * 1024, `${linked} - ${bare}`);
    assert.equal(await diskUsageBeneath(path.join(base, 'nothing-here')), 0);
  });

  it(
    'gives a tree to a user without following its links: what they name stays as it was',
    { skip: process.getuid?.() === 0 ? false : 'needs root' },
    async () => {
      const tree = mkdtempSync(path.join(base, 'chown-'));
      mkdirSync(path.join(tree, 'a', 'b'), { recursive: true });
      writeFileSync(path.join(tree, 'a', 'b', 'f'), 'x');
      writeFileSync(path.join(outside, 'kept'), 'secret');
      symlinkSync(path.join(outside, 'kept'), path.join(tree, 'a', 'to-file'));
      symlinkSync(outside, path.join(tree, 'to-dir'));
      writeFileSync(path.join(outside, 'owned'), 'server');
      linkSync(path.join(outside, 'owned'), path.join(tree, 'a', 'hard'));
      await chownTreeBeneath(base, path.basename(tree), 12345, 12346);
      assert.equal(statSync(path.join(outside, 'owned')).uid, 0, 'a file with a name outside the tree is not given away');
      for (const p of ['', 'a', 'a/b', 'a/b/f', 'a/to-file', 'to-dir']) {
        const st = lstatSync(path.join(tree, p));
        assert.deepEqual([st.uid, st.gid], [12345, 12346], p);
      }
      for (const p of [outside, path.join(outside, 'kept')]) assert.equal(statSync(p).uid, 0, p);
      // A single file is given alone.
      writeFileSync(path.join(base, 'single'), 'y');
      await chownTreeBeneath(base, 'single', 12345, 12346);
      assert.equal(statSync(path.join(base, 'single')).uid, 12345);
      // A link on the way is refused, not followed: what it names keeps its owner.
      mkdirSync(path.join(outside, 'victim-dir'));
      symlinkSync(outside, path.join(base, 'via-link'));
      await assert.rejects(chownTreeBeneath(base, 'via-link/victim-dir', 12345, 12346), reason('link'));
      assert.equal(statSync(path.join(outside, 'victim-dir')).uid, 0);
      // A link as the entry itself: its own owner changes, never its target's.
      await chownTreeBeneath(base, 'via-link', 12345, 12346);
      assert.equal(lstatSync(path.join(base, 'via-link')).uid, 12345);
      assert.equal(statSync(outside).uid, 0);
      // Nothing there: nothing to do.
      await chownTreeBeneath(base, 'nothing/here', 12345, 12346);
    },
  );

  it('removes a tree without following its links: what they name stays', async () => {
    const r = path.join(base, 'remove');
    mkdirSync(path.join(r, 'work', 'deep'), { recursive: true });
    writeFileSync(path.join(r, 'work', 'deep', 'f'), 'x');
    symlinkSync(outside, path.join(r, 'work', 'to-secret'));
    symlinkSync(path.join(outside, 'key'), path.join(r, 'work', 'deep', 'key-link'));
    await removeBeneath(r, 'work');
    assert.equal(existsSync(path.join(r, 'work')), false);
    assert.equal(readFileSync(path.join(outside, 'key'), 'utf8'), 'SECRET\n');
    await removeBeneath(r, 'work'); // gone already: nothing to do
  });

  it('describes an entry synchronously without following it, and the tree goes without following either', async () => {
    const r = path.join(base, 'remove-sync');
    mkdirSync(path.join(r, 'logs', 'deep'), { recursive: true });
    writeFileSync(path.join(r, 'logs', 'deep', 'f'), 'x');
    symlinkSync(outside, path.join(r, 'logs', 'to-secret'));
    symlinkSync(path.join(outside, 'key'), path.join(r, 'logs', 'deep', 'key-link'));
    symlinkSync(path.join(outside, 'key'), path.join(r, 'stdout.txt'));
    assert.equal(lstatBeneathSync(r, 'stdout.txt')?.isSymbolicLink(), true);
    assert.equal(lstatBeneathSync(r, 'logs/deep/f')?.isFile(), true);
    assert.equal(lstatBeneathSync(r, 'none'), null);
    assert.throws(() => lstatBeneathSync(r, 'logs/to-secret/key'), reason('link'));
    await assert.rejects(removeBeneath(r, 'logs/to-secret/key'), reason('link'));
    await removeBeneath(r, 'stdout.txt');
    await removeBeneath(r, 'logs');
    assert.equal(existsSync(path.join(r, 'logs')), false);
    assert.equal(existsSync(path.join(r, 'stdout.txt')), false);
    assert.equal(readFileSync(path.join(outside, 'key'), 'utf8'), 'SECRET\n');
    await removeBeneath(r, 'logs'); // gone already: nothing to do
    await removeBeneath(path.join(base, 'no-root'), 'logs');
  });

  it('removes a directory only when it is empty, and never a link in its place', async () => {
    const r = path.join(base, 'empty');
    mkdirSync(path.join(r, 'full'), { recursive: true });
    mkdirSync(path.join(r, 'empty'));
    writeFileSync(path.join(r, 'full', 'f'), 'x');
    mkdirSync(path.join(outside, 'empty-target'));
    symlinkSync(path.join(outside, 'empty-target'), path.join(r, 'link'));
    assert.equal(await removeEmptyDirBeneath(r, 'full'), false);
    assert.equal(await removeEmptyDirBeneath(r, 'link'), false);
    assert.equal(await removeEmptyDirBeneath(r, 'none'), false);
    assert.equal(await removeEmptyDirBeneath(r, 'empty'), true);
    assert.equal(existsSync(path.join(r, 'empty')), false);
    assert.equal(existsSync(path.join(r, 'full', 'f')), true);
    assert.equal(lstatSync(path.join(r, 'link')).isSymbolicLink(), true);
    assert.equal(statSync(path.join(outside, 'empty-target')).isDirectory(), true);
  });

  it('makes a link and moves an entry below roots without following links on the way', async () => {
    const from = path.join(base, 'staging');
    const to = path.join(base, 'mounts');
    mkdirSync(from);
    mkdirSync(to);
    await symlinkBeneath(from, 'm1', '/some/where');
    assert.equal(readlinkSync(path.join(from, 'm1')), '/some/where');
    await assert.rejects(symlinkBeneath(from, 'm1', '/else'), (e: NodeJS.ErrnoException) => e.code === 'EEXIST');
    // What the task put at the name is replaced (a link itself, never what it names).
    symlinkSync(path.join(outside, 'key'), path.join(to, 'data'));
    await renameBeneath(from, 'm1', to, 'data');
    assert.equal(readlinkSync(path.join(to, 'data')), '/some/where');
    assert.equal(readFileSync(path.join(outside, 'key'), 'utf8'), 'SECRET\n');
    // A link on the way to the target is refused: nothing moves out.
    writeFileSync(path.join(from, 'm2'), 'copy');
    symlinkSync(outside, path.join(to, 'via'));
    await assert.rejects(renameBeneath(from, 'm2', to, 'via/m2'), reason('link'));
    await assert.rejects(symlinkBeneath(to, 'via/m3', '/x'), reason('link'));
    assert.equal(existsSync(path.join(outside, 'm2')), false);
    assert.equal(existsSync(path.join(outside, 'm3')), false);
    assert.equal(readFileSync(path.join(from, 'm2'), 'utf8'), 'copy');
  });
});
