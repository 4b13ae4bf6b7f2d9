// The images of B9, built offline with umoci from this host's own programs (no registry, no network;
// as test/support/test-images.ts builds the tests'):
// - `small`: one layer with bash, sh, true, echo and their libraries (ldd), and the top-level folders
//   of a Debian image's root (etc, var, usr, home, opt, ...: the sandbox binds each entry of an
//   image's root, so their number is part of a launch's cost);
// - `big`: `small` plus a layer holding one file of incompressible random bytes (100 MiB by default):
//   the ~100 MB image of the cold pull.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PROGRAMS = ['/bin/bash', '/bin/sh', '/bin/true', '/bin/echo'];
// The top-level folders of a Debian image's root (bin, lib, lib64 come with the programs); proc, dev and tmp are mount points.
const ROOT_DIRS = [
  'boot',
  'etc',
  'home',
  'media',
  'mnt',
  'opt',
  'root',
  'run',
  'sbin',
  'srv',
  'usr/local/bin',
  'var/tmp',
  'proc',
  'dev',
  'tmp',
];

/** Builds both images into one OCI layout in a new directory under `parent`; answers { layout, dir, bigBytes, dispose() }. */
export function buildBenchImages({ parent = os.tmpdir(), bigBytes = 100 * 1024 * 1024 } = {}) {
  const dir = mkdtempSync(path.join(parent, 'runyard-bench-images-'));
  try {
    const layout = path.join(dir, 'layout');
    const umoci = (...args) => execFileSync('umoci', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    umoci('init', '--layout', layout);
    umoci('new', '--image', `${layout}:empty`);

    const base = path.join(dir, 'base');
    for (const program of PROGRAMS) for (const file of [program, ...librariesOf(program)]) copyInto(base, file);
    for (const folder of ROOT_DIRS) mkdirSync(path.join(base, folder), { recursive: true });
    umoci('insert', '--rootless', '--image', `${layout}:empty`, '--tag', 'small', base, '/');

    const layer = path.join(dir, 'layer-big');
    mkdirSync(path.join(layer, 'data'), { recursive: true });
    const fd = openSync(path.join(layer, 'data/random.bin'), 'w');
    for (let left = bigBytes; left > 0; left -= 1 << 20) writeSync(fd, randomBytes(Math.min(left, 1 << 20)));
    closeSync(fd);
    umoci('insert', '--rootless', '--image', `${layout}:small`, '--tag', 'big', layer, '/');
    // The layer's source is in the layout now (gzipped): only the layout is kept.
    rmSync(layer, { recursive: true, force: true });
    rmSync(base, { recursive: true, force: true });
    return { layout, dir, bigBytes, dispose: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The shared libraries a program loads, as ldd lists them (`name => /path (addr)` or `/path (addr)`). */
function librariesOf(program) {
  const out = execFileSync('ldd', [program], { encoding: 'utf8' });
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]);
}

/** Copies a host file to the same path under root, following links (the image holds the file itself). */
function copyInto(root, file) {
  const target = path.join(root, file);
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(file, target);
  chmodSync(target, 0o755);
}
