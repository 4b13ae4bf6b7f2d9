import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Small images built offline from this host's own programs with umoci (no registry, no network):
 * a base layer with sh, cat, ls and their libraries (ldd) and the mount points /proc, /dev, /tmp, and one layer per image with a tool only
 * that image has (`/usr/local/bin/hello-a` in image a, ...). The images share the base layer, as
 * real images share a distribution's. Building all three takes well under a second.
 */
export interface TestImages {
  /** The OCI layout: push `<layout>:<tag>` with TestRegistry.push. */
  layout: string;
  /** Tags in the layout: `a`, `b`, `private`. */
  tags: readonly string[];
  dir: string;
}

const BASE_PROGRAMS = ['/bin/sh', '/bin/cat', '/bin/ls'];

/** Builds the images into a fresh directory under `parent` (the test's temporary directory). */
export function buildTestImages(parent = os.tmpdir()): TestImages {
  const dir = mkdtempSync(path.join(parent, 'runyard-images-'));
  const layout = path.join(dir, 'layout');
  const umoci = (...args: string[]) => execFileSync('umoci', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  umoci('init', '--layout', layout);
  umoci('new', '--image', `${layout}:empty`);

  const base = path.join(dir, 'base');
  for (const program of BASE_PROGRAMS) for (const file of [program, ...librariesOf(program)]) copyInto(base, file);
  // Mount points a sandbox binds over, as a distribution's image has them.
  for (const mountPoint of ['proc', 'dev', 'tmp']) mkdirSync(path.join(base, mountPoint));
  umoci('insert', '--rootless', '--image', `${layout}:empty`, '--tag', 'base', base, '/');

  const tags = ['a', 'b', 'private'];
  for (const tag of tags) {
    const layer = path.join(dir, `layer-${tag}`);
    mkdirSync(path.join(layer, 'usr/local/bin'), { recursive: true });
    const tool = path.join(layer, `usr/local/bin/hello-${tag}`);
    writeFileSync(tool, `#!/bin/sh\necho "hello from image ${tag}"\n`);
    chmodSync(tool, 0o755);
    umoci('insert', '--rootless', '--image', `${layout}:base`, '--tag', tag, layer, '/');
  }
  return { layout, tags, dir };
}

/** The shared libraries a program loads, as ldd lists them (`name => /path (addr)` or `/path (addr)`). */
function librariesOf(program: string): string[] {
  const out = execFileSync('ldd', [program], { encoding: 'utf8' });
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]);
}

/** Copies a host file to the same path under root, following links (the image holds the file itself). */
function copyInto(root: string, file: string): void {
  const target = path.join(root, file);
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(file, target);
  chmodSync(target, 0o755);
}
