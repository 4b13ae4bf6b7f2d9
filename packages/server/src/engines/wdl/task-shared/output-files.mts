import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

// Shared by the WDL task programs (cromwell-task, miniwdl-task): node built-ins only, as they run in the sandbox.

/** A File (or Directory) output: its output name (`hello.greeting`), and where the engine has it. */
export interface OutputFile {
  name: string;
  source: string;
  /** The value as the engine's outputs give it, when not the path itself (a `file://` URL): what outputs.json rewrites. */
  value?: string;
}

export const OUTPUTS_JSON = 'outputs.json';

export function isInside(parent: string, target: string): boolean {
  const rel = path.relative(parent, target);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** The outputs with each File's path (the engine's) replaced by where its copy is, relative to the results folder. */
function rewritten(value: unknown, copies: Map<string, string>): unknown {
  if (typeof value === 'string') return copies.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => rewritten(v, copies));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewritten(v, copies)]));
  return value;
}

/**
 * Copies the File outputs into results keeping their names (a name that more than one file has,
 * shards' `out.txt`, goes to results/<output>/<n>/<name>), and writes every output to
 * results/outputs.json with each copied File's path rewritten to its copy's, relative to results
 * (one that could not be copied keeps the engine's). Answers where each file went, and the files
 * that could not be copied.
 */
export async function placeOutputs(
  outputs: Record<string, unknown>,
  files: OutputFile[],
  results: string,
): Promise<{ copied: { name: string; source: string; dest: string }[]; problems: string[] }> {
  // The job's results/results (WdlRun.resultsDir): made here, by the task, as the sandbox lets it.
  await mkdir(results, { recursive: true });
  const count = new Map<string, number>([[OUTPUTS_JSON, 1]]);
  for (const f of files) count.set(path.basename(f.source), (count.get(path.basename(f.source)) ?? 0) + 1);
  const copied: { name: string; source: string; dest: string }[] = [];
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
      copied.push({ name: f.name, source: f.value ?? f.source, dest: path.relative(results, dest) });
    } catch (e) {
      problems.push(`${f.name} (${f.source}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  const copies = new Map(copied.map((c) => [c.source, c.dest] as const));
  await writeFile(path.join(results, OUTPUTS_JSON), `${JSON.stringify(rewritten(outputs, copies), null, 2)}\n`);
  return { copied, problems };
}
