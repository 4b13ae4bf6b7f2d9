import assert from 'node:assert/strict';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { runCli, tempDir, type RunOptions } from './support/run-cli.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const TRACER = fileURLToPath(new URL('../../../test/support/trace-imports.mjs', import.meta.url));
const CODE_CACHE_REPORTER = fileURLToPath(new URL('./support/report-code-cache.mjs', import.meta.url));
// Node names a module by its real path (this file may be a compiled copy beside links: scripts/test-build.mjs).
const BIN_URL = pathToFileURL(realpathSync(fileURLToPath(new URL('../bin/runyard.js', import.meta.url)))).href;

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

  it('stays light: --version loads nothing but the bin; a command loads the bundle as a script, never the server', async () => {
    const version = await importsOf(['--version']);
    assert.ok(
      version.some((s) => s.endsWith('/bin/runyard.js')),
      'the tracer works',
    );
    const modules = (imports: string[]) => [...new Set(imports.filter((s) => !s.startsWith('node:')))];
    assert.deepEqual(modules(version), [BIN_URL]);
    // The SDK and commander are in the bundle (scripts/bundle-cli.mjs), compiled by the bin as one
    // script: no module is imported; the server is imported by `server start` alone.
    const list = await importsOf(['project', 'list', '-k', 'k', '-c', 'http://127.0.0.1:9', '--workspace-id', '6630f0aa11223344556677ff']);
    assert.deepEqual(modules(list), [BIN_URL]);
  });

  it("compiles the bundle with the build's code cache, which V8 takes", async () => {
    const report = path.join(tempDir('runyard-code-cache-'), 'report.txt');
    const r = await runCli(['--help'], { nodeArgs: ['--import', CODE_CACHE_REPORTER], env: { CODE_CACHE_REPORT: report } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(report, 'utf8'), 'false\n');
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
