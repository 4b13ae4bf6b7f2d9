import { stat } from 'node:fs/promises';
import { localPathOf } from './call-logs.mjs';
import type { Log } from './follow.mjs';
import { isInside, placeOutputs, type OutputFile } from '../task-shared/output-files.mjs';

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/**
 * The File outputs among Cromwell's outputs (which carry no types): local paths inside the
 * workflow's root, and other local paths that exist (a File input passed on as an output), found
 * in arrays, maps, pairs and objects too.
 */
async function outputFiles(name: string, value: unknown, root: string | null, out: OutputFile[]): Promise<void> {
  if (typeof value === 'string') {
    const local = localPathOf(value);
    if (local && ((root && isInside(root, local)) || (await exists(local)))) out.push({ name, source: local, value });
  } else if (Array.isArray(value)) {
    for (const v of value) await outputFiles(name, v, root, out);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) await outputFiles(name, v, root, out);
  }
}

/**
 * Copies File outputs into results keeping their names, and writes every output to
 * results/outputs.json with each File as its copy (placeOutputs). Answers the files that could not be copied.
 */
export async function copyOutputs(outputs: Record<string, unknown>, root: string | null, results: string, log: Log): Promise<string[]> {
  const files: OutputFile[] = [];
  for (const [name, value] of Object.entries(outputs)) await outputFiles(name, value, root, files);
  const { copied, problems } = await placeOutputs(outputs, files, results);
  for (const c of copied) log(`Output ${c.name}: ${c.dest}`);
  return problems;
}
