import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const TRACER = fileURLToPath(new URL('../../../test/support/trace-imports.mjs', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/start-and-report-modules.mjs', import.meta.url));

/** Packages a server on its embedded defaults does without: each loads when a setting needs it (B5, memory). */
const LOADED_ON_USE = ['@aws-sdk/', '@azure/', 'pg', 'pino-pretty'];

const isOf = (pkg: string) => (file: string) =>
  pkg.endsWith('/') ? file.includes(`/node_modules/${pkg}`) : file.includes(`/node_modules/${pkg}/`);

describe('the server stays light', () => {
  it('on its embedded defaults loads neither the S3 nor the Azure SDK, nor pg, nor pino-pretty', () => {
    const trace = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-trace-')), 'imports.txt');
    const run = spawnSync(process.execPath, ['--import', TRACER, FIXTURE], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: os.tmpdir(), TRACE_IMPORTS_FILE: trace },
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const commonJs = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as string[];
    const imports = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    // What the checks can see: an ES import (fastify) and a CommonJS package (better-sqlite3, the database).
    assert.ok(imports.includes('fastify'), 'the import trace works');
    assert.ok(commonJs.some(isOf('better-sqlite3')), 'the CommonJS list works');
    for (const pkg of LOADED_ON_USE) {
      assert.deepEqual(commonJs.filter(isOf(pkg)), [], `${pkg} was required`);
      assert.deepEqual(
        imports.filter((s) => s === pkg || s.startsWith(pkg.endsWith('/') ? pkg : `${pkg}/`)),
        [],
        `${pkg} was imported`,
      );
    }
  });
});
