import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ENTER_IN_SANDBOX, imageRootArgs } from '../../src/executors/sandbox/image-root.js';

/** An unpacked image as a registry could send it: links, folders named like the host's, a FIFO. */
function hostileRootfs(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'runyard-rootfs-'));
  for (const dir of ['usr/bin', 'etc', 'proc', 'tmp', 'sys', 'var/lib/app', 'var/log', '.runyard'])
    mkdirSync(path.join(root, dir), { recursive: true });
  writeFileSync(path.join(root, 'etc/hosts'), '');
  symlinkSync('usr/bin', path.join(root, 'bin'));
  // Where the host keeps the data directory: a link that would aim the job's mounts at the host's /etc.
  symlinkSync('/etc', path.join(root, 'srv'));
  symlinkSync('/', path.join(root, 'escape'));
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  return root;
}

/** The options as (flag, operands) groups, in order. */
function groups(args: string[]): string[][] {
  const arity: Record<string, number> = { '--dir': 1, '--ro-bind': 2, '--symlink': 2 };
  const out: string[][] = [];
  for (let i = 0; i < args.length;) {
    const n = arity[args[i]];
    assert.ok(n !== undefined, `unexpected option ${args[i]}`);
    out.push(args.slice(i, i + 1 + n));
    i += 1 + n;
  }
  return out;
}

describe("an image's root as the sandbox's (image-root.ts)", () => {
  it('binds each entry of the root read-only, keeps links as links, skips what the sandbox makes and what is no file or folder', () => {
    const root = hostileRootfs();
    const g = groups(imageRootArgs(root, []));
    assert.deepEqual(g, [
      ['--symlink', 'usr/bin', '/bin'],
      ['--symlink', '/', '/escape'],
      ['--ro-bind', path.join(root, 'etc'), '/etc'],
      ['--symlink', '/etc', '/srv'],
      ['--ro-bind', path.join(root, 'usr'), '/usr'],
      ['--ro-bind', path.join(root, 'var'), '/var'],
      ['--ro-bind', g.at(-1)![1], ENTER_IN_SANDBOX],
    ]);
    // Not /proc, /tmp, /sys (the sandbox's own), nor the image's /.runyard, nor the FIFO.
    assert.ok(g.at(-1)![1].endsWith('native/build/runyard-enter'));
  });

  it('makes the folders down to each mount point, binding their other entries; a link on the way is replaced, never followed', () => {
    const root = hostileRootfs();
    const work = '/srv/runyard/jobs/j1/work';
    const g = groups(imageRootArgs(root, [work, '/var/lib/runyard/inputs/a.txt', '/var/log']));
    const dests = g.map((x) => `${x[0]} ${x.at(-1)}`);
    // /srv is the image's link to /etc: a folder of the sandbox replaces it, so the job's mount lands at /srv/runyard/....
    assert.ok(dests.includes('--dir /srv'), dests.join('\n'));
    assert.ok(!g.some((x) => x[0] === '--symlink' && x[2] === '/srv'));
    // /var is made, and its entries bound but those on the way (lib) and a mount point itself (log).
    assert.ok(dests.includes('--dir /var'));
    assert.ok(dests.includes('--dir /var/lib'));
    assert.ok(g.some((x) => x[0] === '--ro-bind' && x[1] === path.join(root, 'var/lib/app') && x[2] === '/var/lib/app'));
    assert.ok(!dests.some((d) => d.endsWith(' /var/log')), 'a mount point is left to the bind');
    assert.ok(!g.some((x) => x[0] === '--ro-bind' && x[2] === '/var'), 'the folder above a mount point is not bound whole');
  });
});
