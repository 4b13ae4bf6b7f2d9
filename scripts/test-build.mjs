// Compiles the repository's TypeScript into a mirror of the repository, for the test run.
//
// Why: `node --import tsx` routes every module a test process loads (a test file's graph is 600 to
// 1,000 modules: kysely and typebox alone are 500) through Node 20's loader hooks, which run on a
// separate thread: about 2.5 s of CPU per test file, on a 2-core machine where the suite is
// CPU-bound. The mirror is the same per-file esbuild transform tsx makes, done once for the run.
//
// The mirror keeps every relative path of the repository working: each .ts, .mts and .tsx is
// compiled beside a link to its source (a child process started with `--import tsx` on a .ts path
// still finds it), every other file is a link to the original, and a folder without TypeScript
// is one link (fixtures, dist, node_modules, docs). Node resolves links to their targets, so a
// package's dist or a fixture is the very same module as outside the mirror.
import { build } from 'esbuild';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

const SKIP = new Set(['.git', '.test-build', '.stryker-tmp', 'reports']);
/** Folders that never hold TypeScript to compile: linked whole, never read. */
const OPAQUE = new Set(['node_modules', 'dist']);
const COMPILED = /\.(m?ts|tsx)$/;

function isSource(name) {
  return COMPILED.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.d.mts');
}

/** Whether a folder holds TypeScript to compile, at any depth (node_modules and dist never do). */
function holdsSources(dir, memo) {
  if (memo.has(dir)) return memo.get(dir);
  let found = false;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !OPAQUE.has(entry.name) && !SKIP.has(entry.name)) {
      if (holdsSources(path.join(dir, entry.name), memo)) found = true;
    } else if (entry.isFile() && isSource(entry.name)) found = true;
    if (found) break;
  }
  memo.set(dir, found);
  return found;
}

function mirror(source, target, sources, memo) {
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const from = path.join(source, entry.name);
    const to = path.join(target, entry.name);
    if (entry.isDirectory() && !OPAQUE.has(entry.name) && holdsSources(from, memo)) {
      mirror(from, to, sources, memo);
      continue;
    }
    symlinkSync(from, to);
    if (entry.isFile() && isSource(entry.name)) sources.push(from);
  }
}

/** The compiled file's name: .ts and .tsx give .js, .mts gives .mjs (what the imports name). */
function outputOf(file) {
  return file.replace(/\.mts$/, '.mjs').replace(/\.tsx?$/, '.js');
}

/**
 * Builds the mirror of `root` under `<root>/.test-build/` and returns its folder. Its compiled
 * files carry inline source maps: run them with --enable-source-maps, as tsx does.
 */
export async function buildTestMirror(root) {
  const parent = path.join(root, '.test-build');
  mkdirSync(parent, { recursive: true });
  const outdir = mkdtempSync(path.join(parent, `run-${process.pid}-`));
  const sources = [];
  mirror(root, outdir, sources, new Map());
  // A compiled file must not land on a link: esbuild would write through it, onto the original.
  for (const file of sources) {
    if (existsSync(outputOf(file))) throw new Error(`${outputOf(file)} is beside ${file}: the test mirror cannot hold both`);
  }
  const common = { outdir, outbase: root, format: 'esm', platform: 'node', target: 'node20', sourcemap: 'inline', logLevel: 'error' };
  await Promise.all([
    build({ ...common, entryPoints: sources.filter((f) => !f.endsWith('.mts')) }),
    build({ ...common, entryPoints: sources.filter((f) => f.endsWith('.mts')), outExtension: { '.js': '.mjs' } }),
  ]);
  return outdir;
}

/** Removes the mirrors of runs whose process is gone (a run killed before it could remove its own). */
export function removeStaleMirrors(root) {
  const parent = path.join(root, '.test-build');
  if (!existsSync(parent)) return;
  for (const name of readdirSync(parent)) {
    const pid = Number(/^run-(\d+)-/.exec(name)?.[1]);
    if (pid && isAlive(pid)) continue;
    rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}
