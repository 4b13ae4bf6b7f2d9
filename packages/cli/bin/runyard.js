#!/usr/bin/env node
// The `runyard` command. npm links bins when it installs, before the root "prepare" script builds
// dist/: a bin pointing into dist/ would not be linked on a fresh clone. This file is committed,
// so the link always exists, and it loads the build.
import { existsSync, readFileSync } from 'node:fs';

// `runyard --version` alone answers without loading the commands (B6: the CLI's start-up).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  process.exit(0);
}

// The build's one-file bundle of dist/main.js (scripts/bundle-cli.mjs): one module to load, not some 250.
const main = new URL('../dist/runyard.bundle.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    'runyard is not built yet (packages/cli/dist/runyard.bundle.js is missing): run `npm run build` in the Runyard checkout.\n',
  );
  process.exit(1);
}
await import(main.href);
