// Bundles the built CLI (packages/cli/dist/main.js, from tsc) into one file, dist/runyard.bundle.js,
// which bin/runyard.js runs: Node loads one module instead of some 250 (B6, the CLI's start-up).
// The server stays outside: only `runyard server start` imports it, at run time.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../packages/cli/dist/', import.meta.url));

await build({
  entryPoints: [`${dist}main.js`],
  outfile: `${dist}runyard.bundle.js`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@runyard/server'],
  // CommonJS dependencies (cli-progress) require Node's modules: give the ES module a require.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);",
  },
  // Less source to parse at every start (about 10 ms); names are kept, so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});
