import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build, type BuildFailure } from 'esbuild';
import ts from 'typescript';

// `@runyard/client/core` is what the dashboard bundles: built for a browser it must need nothing of
// node, neither at run time (esbuild refuses a node builtin for the browser platform) nor in its
// types (a page's program has the DOM's types, not node's).

const pkg = fileURLToPath(new URL('..', import.meta.url));

const bundle = (entry: string) =>
  build({
    entryPoints: [path.join(pkg, 'dist', entry)],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    logLevel: 'silent',
  });

describe('the browser-safe core', () => {
  it('bundles for the browser with no node: import or require', async () => {
    const result = await bundle('core.js');
    assert.equal(result.errors.length, 0);
    const text = result.outputFiles[0].text;
    assert.ok(text.includes('x-runyard-csrf'), 'the bundle holds FetchTransport');
    assert.match(text, /\bRunyardApi = class\b/, 'the bundle holds RunyardApi');
    assert.doesNotMatch(text, /(from\s*|import\s*\(\s*|require\s*\(\s*)["']node:/);
  });

  it('is a real check: the node entry point fails to bundle for the browser on its node builtins', async () => {
    await assert.rejects(bundle('index.js'), (e: unknown) => {
      const messages = (e as BuildFailure).errors.map((x) => x.text);
      assert.ok(messages.length > 0);
      assert.ok(
        messages.some((m) => m.includes('"node:fs"')),
        messages.join('\n'),
      );
      return true;
    });
  });

  it("type-checks in a page's program: DOM types, no node types", () => {
    const dir = mkdtempSync(path.join(pkg, 'test', '.page-'));
    try {
      const page = path.join(dir, 'page.ts');
      writeFileSync(
        page,
        [
          "import { FetchTransport, RunyardApi, NotFoundError, type ApiTransport, type JobEvent } from '@runyard/client/core';",
          'let token: string | undefined;',
          'const transport: ApiTransport = new FetchTransport({ csrfToken: () => token });',
          'const api = new RunyardApi(transport);',
          'export async function signIn(key: string): Promise<string> {',
          '  const session = await api.login(key);',
          '  token = session.csrfToken;',
          '  const projects = await api.getProjectList(session.user.workspaces[0]!.id);',
          '  const events: JobEvent[] = [];',
          "  for await (const e of api.followJob('j', 'w')) events.push(e);",
          "  const a = document.createElement('a');",
          "  a.href = api.storageObjectPath('w', { bucket: 'b', key: 'k' });",
          '  return `${projects.length} ${events.length} ${String(new NotFoundError(404, undefined, "m", "GET", "/").status)}`;',
          '}',
        ].join('\n'),
      );
      const program = ts.createProgram([page], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
        types: [],
        skipLibCheck: false,
      });
      const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      assert.deepEqual(diagnostics, []);
      const files = program.getSourceFiles().map((f) => f.fileName);
      assert.ok(files.some((f) => f.endsWith('client/dist/core.d.ts')));
      assert.ok(!files.some((f) => f.includes('@types/node')), 'no node types were loaded');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
