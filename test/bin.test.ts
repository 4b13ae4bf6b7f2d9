// The commands npm links at install time. npm links bins before the root "prepare" script builds
// dist/, so a bin must be a committed file (that loads dist/), or a fresh clone gets no `runyard`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packages = ['cli', 'server'].map((name) => path.join(root, 'packages', name));
const binsOf = (dir: string) =>
  Object.entries(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).bin as Record<string, string>);
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('RUNYARD_')));

describe('package bins', () => {
  it('point at committed, executable node scripts, never into dist/', () => {
    for (const dir of packages) {
      for (const [name, target] of binsOf(dir)) {
        assert.doesNotMatch(target, /(^|\/)dist\//, `${name} points into dist/`);
        const file = path.join(dir, target);
        accessSync(file, constants.X_OK);
        assert.match(readFileSync(file, 'utf8'), /^#!\/usr\/bin\/env node\n/, `${name} starts with a node shebang`);
      }
    }
  });

  it('runyard runs the built CLI (through the bin, not dist/main.js itself)', () => {
    const version = JSON.parse(readFileSync(path.join(root, 'packages/cli/package.json'), 'utf8')).version;
    const r = spawnSync(path.join(root, 'packages/cli/bin/runyard.js'), ['--version'], { encoding: 'utf8', env: cleanEnv });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), version);
    // --version alone is answered by the bin itself; anything else loads the build.
    const help = spawnSync(path.join(root, 'packages/cli/bin/runyard.js'), ['--help'], { encoding: 'utf8', env: cleanEnv });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: runyard /);
  });

  it('runyard-server runs the built server (a bad setting is reported, exit code 1)', () => {
    const r = spawnSync(path.join(root, 'packages/server/bin/runyard-server.js'), [], {
      encoding: 'utf8',
      env: { ...cleanEnv, RUNYARD_PORT: 'eighty' },
      timeout: 20_000,
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /RUNYARD_PORT/);
  });

  it('before the build, each says to run `npm run build` (exit code 1)', () => {
    for (const dir of packages) {
      for (const [name, target] of binsOf(dir)) {
        const copy = mkdtempSync(path.join(os.tmpdir(), 'runyard-bin-'));
        mkdirSync(path.join(copy, path.dirname(target)), { recursive: true });
        copyFileSync(path.join(dir, target), path.join(copy, target));
        writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ type: 'module' }));
        const r = spawnSync(process.execPath, [path.join(copy, target)], { encoding: 'utf8', env: cleanEnv });
        assert.equal(r.status, 1, name);
        assert.match(r.stderr, /not built yet .*run `npm run build`/, name);
      }
    }
  });
});
