#!/usr/bin/env node
// Runs every *.test.ts under packages/*/test and test/ with Node's test runner, compiled once into a
// mirror of the repository (scripts/test-build.mjs; RUNYARD_TEST_LOADER=tsx runs them through tsx's
// loader instead). Arguments, if any, narrow the run to files whose path contains one of them.
// With RUNYARD_TEST_DATABASE_URL (the PostgreSQL run), only the files that use a database run
// (scripts/test-database-files.mjs); RUNYARD_TEST_ALL_FILES=1 runs them all.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTestMirror, removeStaleMirrors } from './test-build.mjs';
import { databaseDependentFiles } from './test-database-files.mjs';

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
let files = roots
  .flatMap((r) => walk(r, []))
  .filter((f) => !filters.length || filters.some((x) => f.includes(x)))
  .sort();
if (!files.length) {
  console.error('no test files found');
  process.exit(1);
}
if (process.env.RUNYARD_TEST_DATABASE_URL && process.env.RUNYARD_TEST_ALL_FILES !== '1') {
  const dependent = databaseDependentFiles(root, files);
  const left = files.length - dependent.size;
  files = files.filter((f) => dependent.has(f));
  console.log(
    `# PostgreSQL run: the ${files.length} test files that use a database; ${left} others run the same on any database (the SQLite run has them)`,
  );
  if (!files.length) process.exit(0);
}
const tsx = process.env.RUNYARD_TEST_LOADER === 'tsx';
removeStaleMirrors(root);
const mirror = tsx ? null : await buildTestMirror(root);
const runFiles = mirror ? files.map((f) => path.join(mirror, path.relative(root, f)).replace(/\.ts$/, '.js')) : files;
const loader = tsx ? ['--import', 'tsx'] : ['--enable-source-maps'];
const timesDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-test-times-'));
const timesFile = path.join(timesDir, 'times.jsonl');
const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout'];
reporters.push(`--test-reporter=${path.join(root, 'scripts/test-times-reporter.mjs')}`, `--test-reporter-destination=${timesFile}`);
const result = spawnSync(process.execPath, [...loader, '--test', '--test-concurrency=2', ...reporters, ...runFiles], {
  stdio: 'inherit',
  cwd: root,
});
if (mirror) rmSync(mirror, { recursive: true, force: true });
printSlowestFiles(timesFile, 15);
// RUNYARD_TEST_TIMES=<file> keeps every file's times (JSON lines), to compare runs.
if (process.env.RUNYARD_TEST_TIMES && existsSync(timesFile)) copyFileSync(timesFile, process.env.RUNYARD_TEST_TIMES);
rmSync(timesDir, { recursive: true, force: true });
// A runner killed by a signal prints no summary: say which signal, so the cause can be found.
if (result.signal) console.error(`the test runner was killed by ${result.signal}`);
process.exit(result.status ?? 1);

// The slowest files, as TAP comments after the run: where the suite's time goes.
function printSlowestFiles(file, count) {
  let rows = [];
  try {
    rows = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return;
  }
  rows.sort((a, b) => b.wallMs - a.wallMs);
  const total = rows.reduce((sum, row) => sum + row.wallMs, 0);
  console.log(`# slowest test files (wall s, of ${(total / 1000).toFixed(0)} s over ${rows.length} files):`);
  for (const row of rows.slice(0, count)) {
    console.log(`#   ${(row.wallMs / 1000).toFixed(1).padStart(6)}  ${sourceOf(row.file)}`);
  }
}

/** A test file's path in the repository, from its path in the mirror. */
function sourceOf(file) {
  // Source maps give the original path; without them, the compiled file's.
  if (mirror && file.startsWith(mirror + path.sep)) return path.relative(mirror, file).replace(/\.js$/, '.ts');
  return path.relative(root, file);
}
