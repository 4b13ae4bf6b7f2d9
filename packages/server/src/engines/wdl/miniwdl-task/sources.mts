import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, copyFile, mkdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { MiniwdlControl } from './control.mjs';

export type Log = (line: string) => void;

/** The executable file `name` in a directory of `pathVar` (PATH), or null. */
export async function findOnPath(name: string, pathVar: string | undefined): Promise<string | null> {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      await access(file, constants.X_OK);
      if ((await stat(file)).isFile()) return file;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** Runs a program to its end (no shell): its exit code (null when killed) and the end of its stderr. */
function run(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000);
    });
    child.on('error', (e) => resolve({ code: 127, stderr: e.message }));
    child.on('close', (code) => resolve({ code, stderr: stderr.trim() }));
  });
}

/**
 * Where a run of this job's attempt lives, in <work>/runyard-miniwdl: the call cache (shared by
 * the runs of the work directory, so that a resumed job finds its parent's calls), the run's
 * directory (miniwdl's `--dir <run>/.`) and, with an imports zip, its sources. A task that
 * starts again for the same attempt gets a directory of its own: miniwdl never runs twice in one.
 */
export interface RunLayout {
  cacheDir: string;
  runDir: string;
  srcDir: string;
}

export async function runLayout(control: MiniwdlControl): Promise<RunLayout> {
  const home = path.join(control.work, 'runyard-miniwdl');
  const cacheDir = path.join(home, 'call-cache');
  await mkdir(path.join(home, 'runs'), { recursive: true });
  await mkdir(cacheDir, { recursive: true });
  const base = `${control.jobId}-${control.attempt}`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}.${n}`;
    const runDir = path.join(home, 'runs', name);
    try {
      await mkdir(runDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    return { cacheDir, runDir, srcDir: path.join(home, 'sources', name) };
  }
}

/** The Python that runs miniwdl: the interpreter of its #! line (`#!/usr/bin/env python3`: python3 on PATH). */
async function miniwdlPython(miniwdl: string, pathVar: string | undefined): Promise<string | null> {
  const head = (await readFile(miniwdl).catch(() => Buffer.alloc(0))).subarray(0, 256).toString('utf8');
  const m = /^#!\s*(\S+)(?:[ \t]+(\S+))?/.exec(head.split('\n', 1)[0] ?? '');
  if (!m) return null;
  const env = path.basename(m[1]!) === 'env' && m[2];
  const program = env ? m[2]! : m[1]!;
  if (!/^python/.test(path.basename(program))) return null;
  return env ? findOnPath(program, pathVar) : program;
}

// zipfile writes every entry as a file under the directory: it drops `..` and leading `/`, and makes no symlinks.
const PY_EXTRACT = 'import sys, zipfile\nzipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])\n';

/**
 * Unpacks the imports zip with Python's zipfile, in the Python that runs miniwdl (a real miniwdl
 * is a Python script); else with `unzip` from the task PATH (its exit code 1 is a warning, e.g. an
 * empty zip; it drops `../` and leading `/` too).
 */
async function unpack(zip: string, dest: string, miniwdl: string, log: Log): Promise<void> {
  const pathVar = process.env.PATH;
  const python = await miniwdlPython(miniwdl, pathVar);
  if (python) {
    const r = await run([python, '-c', PY_EXTRACT, zip, dest], process.env);
    if (r.code === 0) return;
    throw new Error(
      `The imports file could not be unpacked (Python's zipfile, ${python}): ${r.stderr.split('\n').at(-1) || `exit code ${r.code}`}`,
    );
  }
  const unzip = await findOnPath('unzip', pathVar);
  if (!unzip) throw new Error(`The imports file cannot be unpacked: ${miniwdl} is not a Python script, and the task PATH has no unzip.`);
  log(`unpacking the imports file with ${unzip}: ${miniwdl} is not a Python script.`);
  const r = await run([unzip, '-q', '-o', zip, '-d', dest], process.env);
  if (r.code === 0 || r.code === 1) return;
  throw new Error(`The imports file could not be unpacked (unzip exited with code ${r.code}): ${r.stderr || 'no message'}`);
}

/**
 * The main file miniwdl runs. miniwdl resolves an import relative to the importing file, so with
 * an imports zip the main file is copied into the directory the zip is unpacked into (the main
 * file wins over an entry of the same name), as Cromwell reads imports from the zip's root.
 */
export async function mainFileToRun(control: MiniwdlControl, layout: RunLayout, miniwdl: string, log: Log): Promise<string> {
  if (!control.importsFile) return control.mainFile;
  await mkdir(layout.srcDir, { recursive: true });
  await unpack(control.importsFile, layout.srcDir, miniwdl, log);
  const main = path.join(layout.srcDir, path.basename(control.mainFile));
  // An entry of that name (a symlink, with unzip) is replaced, never written through.
  await rm(main, { force: true, recursive: true });
  await copyFile(control.mainFile, main, constants.COPYFILE_EXCL);
  return main;
}
