import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { runCli, tempDir, type RunOptions } from './support/run-cli.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const TRACER = fileURLToPath(new URL('./support/trace-imports.mjs', import.meta.url));

/** Runs the CLI and returns the module specifiers it resolved. */
async function importsOf(args: string[], options: RunOptions = {}): Promise<string[]> {
  const file = path.join(tempDir('runyard-trace-'), 'imports.txt');
  await runCli(args, { ...options, nodeArgs: ['--import', TRACER], env: { ...options.env, TRACE_IMPORTS_FILE: file } });
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

describe('runyard (program)', () => {
  it('--version prints the version', async () => {
    const r = await runCli(['--version']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `${pkg.version}\n`);
  });

  it('stays light: --version loads nothing but the bin; a command loads one bundle and Node, never the server', async () => {
    const version = await importsOf(['--version']);
    assert.ok(
      version.some((s) => s.endsWith('/bin/runyard.js')),
      'the tracer works',
    );
    assert.deepEqual(
      version.filter((s) => !s.startsWith('node:') && !s.endsWith('/bin/runyard.js')),
      [],
    );
    const list = await importsOf(['project', 'list', '-k', 'k', '-c', 'http://127.0.0.1:9', '--workspace-id', '6630f0aa11223344556677ff']);
    // The SDK and commander are in the bundle (scripts/bundle-cli.mjs); the server is imported by `server start` alone.
    assert.deepEqual(
      [...new Set(list.filter((s) => !s.startsWith('node:') && !s.endsWith('/bin/runyard.js')))],
      [new URL('../dist/runyard.bundle.js', import.meta.url).href],
    );
  });

  it('--help lists the commands and the exit codes on stdout', async () => {
    const r = await runCli(['--help']);
    assert.equal(r.code, 0);
    for (const c of ['configure', 'project', 'admin', 'server']) assert.match(r.stdout, new RegExp(`\\n  ${c}\\b`));
    assert.match(r.stdout, /Exit codes: 0 ok, 1 error, 2 usage, 4 authentication;\n3: a followed job \(--follow\) was aborted\./);
    const sub = await runCli(['project', 'list', '--help']);
    assert.equal(sub.code, 0);
    for (const o of [
      '--apikey',
      '--platform-url',
      '--workspace-id',
      '--profile',
      '--disable-ssl-verification',
      '--ssl-cert',
      '--output-format',
      '--output-basename',
      '--all-fields',
      '--page',
    ]) {
      assert.ok(sub.stdout.includes(o), o);
    }
  });

  it('usage errors exit 2 with one "Error:" line', async () => {
    for (const args of [
      ['project', 'list', '--bogus'],
      ['projekt'],
      ['project', 'list', 'extra'],
      ['admin', 'user', 'create', '--email', 'x@y.z'],
    ]) {
      const r = await runCli(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /^Error: /, args.join(' '));
      assert.equal(r.stdout, '');
    }
  });

  it('a command group without its verb shows its help and exits 2', async () => {
    const r = await runCli(['project']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Usage: runyard project/);
  });
});
