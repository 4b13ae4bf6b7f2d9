#!/usr/bin/env node
// Runs every *.test.ts under packages/*/test and test/ with Node's test runner (TypeScript via tsx).
// Arguments, if any, narrow the run to files whose path contains one of them.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const roots = [path.join(root, 'test'), ...readdirSync(path.join(root, 'packages')).map((p) => path.join(root, 'packages', p, 'test'))];

function walk(dir, out) {
  let entries = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name === 'fixtures') continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = roots
  .flatMap((r) => walk(r, []))
  .filter((f) => !filters.length || filters.some((x) => f.includes(x)))
  .sort();
if (!files.length) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  cwd: root,
});
// A runner killed by a signal prints no summary: say which signal, so the cause can be found.
if (result.signal) console.error(`the test runner was killed by ${result.signal}`);
process.exit(result.status ?? 1);
