#!/usr/bin/env node
// The `runyard-server` command: committed, unlike dist/, so that npm links it on a fresh clone
// (see packages/cli/bin/runyard.js); it runs the built server until SIGTERM or SIGINT.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    'runyard-server is not built yet (packages/server/dist/main.js is missing): run `npm run build` in the Runyard checkout.\n',
  );
  process.exit(1);
}
const { runUntilSignalled } = await import(main.href);
await runUntilSignalled();
