import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Log } from './sources.mjs';
import { OUTPUTS_JSON, placeOutputs, type OutputFile } from '../task-shared/output-files.mjs';

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

/**
 * Reads the run's outputs.json, copies the File outputs into results by their names (the files,
 * not miniwdl's links; a name that more than one file has goes to results/<output>/<n>/<name>), and
 * writes every output to results/outputs.json, each File as its copy. Answers the files that could
 * not be copied.
 */
export async function copyOutputs(runDir: string, results: string, log: Log): Promise<string[]> {
  let outputs: Record<string, unknown>;
  try {
    outputs = JSON.parse(await readFile(path.join(runDir, OUTPUTS_JSON), 'utf8')) as Record<string, unknown>;
  } catch (e) {
    return [`miniwdl's ${OUTPUTS_JSON} could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`];
  }
  // The runs of the job's work directory (runyard-miniwdl/runs), as given and as the file system has them.
  const runsDirs = [path.dirname(runDir)];
  const real = await realpath(runsDirs[0]!).catch(() => runsDirs[0]!);
  if (real !== runsDirs[0]) runsDirs.push(real);
  const files: OutputFile[] = [];
  for (const [name, value] of Object.entries(outputs)) outputFiles(name, value, runsDirs, files);
  const { copied, problems } = await placeOutputs(outputs, files, results);
  for (const c of copied) log(`output ${c.name}: ${c.dest}`);
  return problems;
}
