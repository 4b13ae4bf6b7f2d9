import { readFile } from 'node:fs/promises';
import { localPathOf } from './call-logs.mjs';
import type { Log } from './follow.mjs';
import { isInside, placeOutputs, type OutputFile } from '../task-shared/output-files.mjs';

/** The local paths among the values of the workflow's inputs (the File inputs Runyard staged), nested ones too. */
async function inputPaths(inputsFile: string | null): Promise<Set<string>> {
  const out = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      const local = localPathOf(value);
      if (local) out.add(local);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  if (inputsFile) walk(JSON.parse(await readFile(inputsFile, 'utf8').catch(() => '{}')));
  return out;
}

/**
 * The File outputs among Cromwell's outputs (which carry no types): local paths inside the
 * workflow's root, and the paths of File inputs passed on as outputs, found in arrays, maps, pairs
 * and objects too. Any other string is a String, even one that names a file that exists.
 */
function outputFiles(name: string, value: unknown, root: string | null, inputs: Set<string>, out: OutputFile[]): void {
  if (typeof value === 'string') {
    const local = localPathOf(value);
    if (local && ((root && isInside(root, local)) || inputs.has(local))) out.push({ name, source: local, value });
  } else if (Array.isArray(value)) {
    for (const v of value) outputFiles(name, v, root, inputs, out);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) outputFiles(name, v, root, inputs, out);
  }
}

/**
 * Copies File outputs into results keeping their names (inputsFile: the workflow's inputs, whose File
 * values an output may pass on), and writes every output to
 * results/outputs.json with each File as its copy (placeOutputs). Answers the files that could not be copied.
 */
export async function copyOutputs(
  outputs: Record<string, unknown>,
  root: string | null,
  inputsFile: string | null,
  results: string,
  log: Log,
): Promise<string[]> {
  const inputs = await inputPaths(inputsFile);
  const files: OutputFile[] = [];
  for (const [name, value] of Object.entries(outputs)) outputFiles(name, value, root, inputs, files);
  const { copied, problems } = await placeOutputs(outputs, files, results);
  for (const c of copied) log(`Output ${c.name}: ${c.dest}`);
  return problems;
}
