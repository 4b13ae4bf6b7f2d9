import { cp, mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Log } from './sources.mjs';

function isInside(parent: string, target: string): boolean {
  const rel = path.relative(parent, target);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** A File (or Directory) output: its output name (`hello.greeting`), and its link in a run's out/. */
interface OutputFile {
  name: string;
  source: string;
}

/** Whether a path is in the out/ directory of a run in `runsDirs` (`<runs>/<run>/out/...`). */
function inRunOut(runsDirs: string[], p: string): boolean {
  return runsDirs.some((runs) => {
    const parts = path.relative(runs, p).split(path.sep);
    return parts.length > 2 && parts[0] !== '..' && !path.isAbsolute(parts[0]!) && parts[1] === 'out';
  });
}

/**
 * The File and Directory values among the outputs, which carry no types in outputs.json: miniwdl
 * links each of them, and only them, under the run's out/ directory and gives that link as the
 * value (runtime/_io_helpers.py link_outputs), in arrays, maps, pairs and structs too. A workflow
 * taken whole from the call cache gives the links of the run that made it: another run's out/.
 */
function outputFiles(name: string, value: unknown, runsDirs: string[], out: OutputFile[]): void {
  if (typeof value === 'string') {
    if (path.isAbsolute(value) && inRunOut(runsDirs, path.resolve(value))) out.push({ name, source: value });
  } else if (Array.isArray(value)) {
    for (const v of value) outputFiles(name, v, runsDirs, out);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) outputFiles(name, v, runsDirs, out);
  }
}

const OUTPUTS_JSON = 'outputs.json';

/**
 * Reads the run's outputs.json, writes every output as miniwdl gives it to results/outputs.json,
 * and copies the File outputs into results by their names (the files, not miniwdl's links); a
 * name that more than one file has goes to results/<output>/<n>/<name>. Answers the files that
 * could not be copied.
 */
export async function copyOutputs(runDir: string, results: string, log: Log): Promise<string[]> {
  let outputs: Record<string, unknown>;
  try {
    outputs = JSON.parse(await readFile(path.join(runDir, OUTPUTS_JSON), 'utf8')) as Record<string, unknown>;
  } catch (e) {
    return [`miniwdl's ${OUTPUTS_JSON} could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`];
  }
  await writeFile(path.join(results, OUTPUTS_JSON), `${JSON.stringify(outputs, null, 2)}\n`);
  // The runs of the job's work directory (runyard-miniwdl/runs), as given and as the file system has them.
  const runsDirs = [path.dirname(runDir)];
  const real = await realpath(runsDirs[0]!).catch(() => runsDirs[0]!);
  if (real !== runsDirs[0]) runsDirs.push(real);
  const files: OutputFile[] = [];
  for (const [name, value] of Object.entries(outputs)) outputFiles(name, value, runsDirs, files);
  const count = new Map<string, number>([[OUTPUTS_JSON, 1]]);
  for (const f of files) count.set(path.basename(f.source), (count.get(path.basename(f.source)) ?? 0) + 1);
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const f of files) {
    const base = path.basename(f.source);
    const short = f.name.slice(f.name.lastIndexOf('.') + 1).replace(/[^A-Za-z0-9._-]/g, '_');
    const n = (seen.get(f.name) ?? 0) + 1;
    seen.set(f.name, n);
    const dest = path.resolve(results, ...(count.get(base) === 1 ? [base] : [short, String(n), base]));
    if (!isInside(results, dest) || base === '.' || base === '..') {
      problems.push(`${f.name} (${f.source}): its name leaves the results folder`);
      continue;
    }
    try {
      await mkdir(path.dirname(dest), { recursive: true });
      await cp(f.source, dest, { recursive: true, dereference: true, force: true });
      log(`output ${f.name}: ${path.relative(results, dest)}`);
    } catch (e) {
      problems.push(`${f.name} (${f.source}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  return problems;
}
