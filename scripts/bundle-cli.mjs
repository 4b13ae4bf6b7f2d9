// Bundles the built CLI (packages/cli/dist/main.js, from tsc) into one script, dist/runyard.bundle.cjs,
// which bin/runyard.js compiles with V8's code cache, dist/runyard.bundle.code-cache, made here by
// running the CLI once (`--help`, which builds every command). A start then loads one file and
// parses almost nothing (B6, the CLI's start-up). The server stays outside: only `runyard server
// start` imports it, at run time.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = fileURLToPath(new URL('../packages/cli/dist/', import.meta.url));
const bin = fileURLToPath(new URL('../packages/cli/bin/runyard.js', import.meta.url));
const cache = `${dist}runyard.bundle.code-cache`;

await build({
  // main.js through an import: its #! line (a syntax error in a script) stays out of the bundle.
  stdin: { contents: "import './main.js';", resolveDir: dist, sourcefile: 'runyard-bundle-entry.js' },
  outfile: `${dist}runyard.bundle.cjs`,
  bundle: true,
  platform: 'node',
  // A script, not a module: only scripts take a code cache (vm.Script) on Node 20.
  format: 'cjs',
  target: 'node20',
  external: ['@runyard/server'],
  // import.meta.url (version.ts reads ../package.json) is the bundle's own URL.
  define: { 'import.meta.url': 'bundleUrl' },
  banner: { js: "var bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  // Less source to parse; names are kept, so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});

rmSync(cache, { force: true });
const run = spawnSync(process.execPath, [bin, '--help'], {
  env: { PATH: process.env.PATH, HOME: process.env.HOME, RUNYARD_CLI_CODE_CACHE_OUT: cache },
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (run.status !== 0) throw new Error(`runyard --help failed (${run.status ?? run.signal}) while making the code cache`);
