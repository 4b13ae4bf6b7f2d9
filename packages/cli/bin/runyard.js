#!/usr/bin/env node
// The `runyard` command. npm links bins when it installs, before the root "prepare" script builds
// dist/: a bin pointing into dist/ would not be linked on a fresh clone. This file is committed,
// so the link always exists, and it loads the build.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

// `runyard --version` alone answers without loading the commands (B6: the CLI's start-up).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  process.exit(0);
}

// The build's one-file bundle of dist/main.js and V8's code cache for it (scripts/bundle-cli.mjs):
// one file to load, and next to nothing to parse. A cache that another Node made is refused by V8,
// and the bundle is then compiled as usual.
const bundle = fileURLToPath(new URL('../dist/runyard.bundle.cjs', import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write(
    'runyard is not built yet (packages/cli/dist/runyard.bundle.cjs is missing): run `npm run build` in the Runyard checkout.\n',
  );
  process.exit(1);
}
const cacheFile = bundle.replace(/\.cjs$/, '.code-cache');
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8')}\n})`, {
  filename: bundle,
  cachedData: existsSync(cacheFile) ? readFileSync(cacheFile) : undefined,
});
// The build sets this to keep what V8 compiled while the CLI ran.
const cacheOut = process.env.RUNYARD_CLI_CODE_CACHE_OUT;
if (cacheOut) process.once('exit', () => writeFileSync(cacheOut, script.createCachedData()));
// `runyard server start` imports the server, an ES module: a script's own import() would need an
// experimental flag (commands/server/load-server.ts).
globalThis.runyardImportServer = () => import('@runyard/server');
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
