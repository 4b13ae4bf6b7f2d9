import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { TaskSpec } from '../../src/executors/executor.js';
import { bwrapStatusArgv } from '../../src/executors/sandbox/bwrap.js';
import { EtcSnapshot } from '../../src/executors/sandbox/etc-snapshot.js';

const ENTRIES = ['passwd', 'hosts', 'localtime', 'ssl/certs', 'ssl/openssl.cnf', 'absent.conf', 'ld.so.conf.d'];

/** A host /etc of its own: files, a link, directories, and something outside the list. */
function fakeEtc() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'runyard-etc-'));
  const etc = path.join(root, 'etc');
  mkdirSync(path.join(etc, 'ssl', 'certs'), { recursive: true });
  mkdirSync(path.join(etc, 'ld.so.conf.d'));
  writeFileSync(path.join(etc, 'passwd'), 'root:x:0:0::/root:/bin/sh\n');
  writeFileSync(path.join(etc, 'hosts'), '127.0.0.1 localhost\n', { mode: 0o600 });
  writeFileSync(path.join(etc, 'zone'), 'TZif\n');
  symlinkSync('zone', path.join(etc, 'localtime'));
  writeFileSync(path.join(etc, 'ssl', 'openssl.cnf'), '[openssl]\n');
  writeFileSync(path.join(etc, 'ssl', 'certs', 'ca.pem'), 'CERT\n');
  writeFileSync(path.join(etc, 'shadow'), 'root:secret\n');
  return { etc, copies: path.join(root, 'copies') };
}

const files = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)) + (e.isDirectory() ? '/' : ''))
    .sort();

describe('/etc as one copy (etc-snapshot.ts)', () => {
  it("copies the listed files' contents (a link followed), leaves mount points for the directories, and nothing else", () => {
    const { etc, copies } = fakeEtc();
    const view = new EtcSnapshot(copies, ENTRIES, etc).view();
    assert.ok(view);
    assert.deepEqual(files(view.dir), ['hosts', 'ld.so.conf.d/', 'localtime', 'passwd', 'ssl/', 'ssl/certs/', 'ssl/openssl.cnf']);
    assert.equal(readFileSync(path.join(view.dir, 'localtime'), 'utf8'), 'TZif\n');
    assert.equal(readFileSync(path.join(view.dir, 'passwd'), 'utf8'), 'root:x:0:0::/root:/bin/sh\n');
    // The host file's mode comes along; the folders are readable by the task.
    assert.equal(statSync(path.join(view.dir, 'hosts')).mode & 0o777, 0o600);
    assert.equal(statSync(view.dir).mode & 0o777, 0o755);
    // What the directories hold is the host's, bound over the copy's empty ones.
    assert.deepEqual(view.binds, ['/etc/ssl/certs', '/etc/ld.so.conf.d']);
    assert.deepEqual(readdirSync(path.join(view.dir, 'ssl', 'certs')), []);
  });

  it('follows the host: a changed, new or removed entry makes a new copy, and the one before stays as it was', () => {
    const { etc, copies } = fakeEtc();
    const snapshot = new EtcSnapshot(copies, ENTRIES, etc);
    const first = snapshot.view()!;
    assert.equal(snapshot.view()!.dir, first.dir, 'nothing changed: the same copy');

    // Replaced as editors and package managers do (a new file renamed over the old).
    writeFileSync(path.join(etc, 'passwd.new'), 'root:x:0:0::/root:/bin/bash\n');
    renameSync(path.join(etc, 'passwd.new'), path.join(etc, 'passwd'));
    const second = snapshot.view()!;
    assert.notEqual(second.dir, first.dir);
    assert.equal(readFileSync(path.join(second.dir, 'passwd'), 'utf8'), 'root:x:0:0::/root:/bin/bash\n');
    // A running task may have the first one bound.
    assert.equal(readFileSync(path.join(first.dir, 'passwd'), 'utf8'), 'root:x:0:0::/root:/bin/sh\n');

    // Written in place, same size.
    writeFileSync(path.join(etc, 'passwd'), 'root:x:0:0::/root:/bin/zsh\n');
    const third = snapshot.view()!;
    assert.equal(readFileSync(path.join(third.dir, 'passwd'), 'utf8'), 'root:x:0:0::/root:/bin/zsh\n');

    writeFileSync(path.join(etc, 'absent.conf'), 'now here\n');
    const fourth = snapshot.view()!;
    assert.equal(readFileSync(path.join(fourth.dir, 'absent.conf'), 'utf8'), 'now here\n');

    rmSync(path.join(etc, 'ssl'), { recursive: true });
    const fifth = snapshot.view()!;
    assert.deepEqual(files(fifth.dir), ['absent.conf', 'hosts', 'ld.so.conf.d/', 'localtime', 'passwd']);
    assert.deepEqual(fifth.binds, ['/etc/ld.so.conf.d']);

    // A link pointed elsewhere.
    writeFileSync(path.join(etc, 'zone2'), 'TZif2\n');
    rmSync(path.join(etc, 'localtime'));
    symlinkSync('zone2', path.join(etc, 'localtime'));
    assert.equal(readFileSync(path.join(snapshot.view()!.dir, 'localtime'), 'utf8'), 'TZif2\n');
  });

  it('a copy removed from under it is made again; another instance (a restarted server) reuses an existing one', () => {
    const { etc, copies } = fakeEtc();
    const first = new EtcSnapshot(copies, ENTRIES, etc).view()!;
    assert.equal(new EtcSnapshot(copies, ENTRIES, etc).view()!.dir, first.dir);
    const snapshot = new EtcSnapshot(copies, ENTRIES, etc);
    snapshot.view();
    rmSync(first.dir, { recursive: true });
    assert.equal(snapshot.view()!.dir, first.dir);
    assert.equal(readFileSync(path.join(first.dir, 'passwd'), 'utf8'), 'root:x:0:0::/root:/bin/sh\n');
    // No half-built copy left behind.
    assert.deepEqual(
      readdirSync(copies).filter((n) => !n.startsWith('etc-')),
      [],
    );
  });

  it('no copy can be made (its folder is a file): null', () => {
    const { etc, copies } = fakeEtc();
    writeFileSync(copies, 'not a folder\n');
    assert.equal(new EtcSnapshot(copies, ENTRIES, etc).view(), null);
  });

  it("bwrap's argv: the copy in one bind and its directories over it; each entry bound when the task binds a path under /etc", () => {
    const task: TaskSpec = { argv: ['true'], env: { PATH: '/usr/bin' }, cwd: '/tmp/work', logFile: '/tmp/log' };
    const view = { dir: '/data/sandbox-etc/etc-0123', binds: ['/etc/ssl/certs'] };
    const etcArgs = (argv: string[]) =>
      argv.flatMap((a, i) => (a.startsWith('--') && argv[i + 2]?.startsWith('/etc') ? [`${a} ${argv[i + 1]} ${argv[i + 2]}`] : []));
    assert.deepEqual(etcArgs(bwrapStatusArgv('/usr/bin/bwrap', task, { network: 'host', launcher: null }, 3, view)), [
      '--ro-bind /data/sandbox-etc/etc-0123 /etc',
      '--ro-bind-try /etc/ssl/certs /etc/ssl/certs',
    ]);
    const java = bwrapStatusArgv(
      '/usr/bin/bwrap',
      { ...task, readable: ['/etc/java-17-openjdk'] },
      { network: 'host', launcher: null },
      3,
      view,
    );
    assert.ok(!java.includes('/data/sandbox-etc/etc-0123'));
    assert.ok(etcArgs(java).includes('--ro-bind-try /etc/passwd /etc/passwd'));
    assert.ok(etcArgs(java).includes('--ro-bind-try /etc/java-17-openjdk /etc/java-17-openjdk'));
  });
});
