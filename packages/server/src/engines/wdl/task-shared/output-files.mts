import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

// Shared by the WDL task programs (cromwell-task, miniwdl-task): node built-ins only, as they run in the sandbox.

/** A File (or Directory) output: its output name (`hello.greeting`), and where the engine has it. */
export interface OutputFile {
  name: string;
  source: string;
}

export const OUTPUTS_JSON = 'outputs.json';

export function isInside(parent: string, target: string): boolean {
  const rel = path.relative(parent, target);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * Writes every output as the engine gives it to results/outputs.json, and copies the File outputs
 * into results keeping their names; a name that more than one file has (shards' `out.txt`) goes to
 * results/<output>/<n>/<name>. Answers where each file went, and the files that could not be copied.
 */
export async function placeOutputs(
  outputs: Record<string, unknown>,
  files: OutputFile[],
  results: string,
): Promise<{ copied: { name: string; dest: string }[]; problems: string[] }> {
  // The job's results/results (WdlRun.resultsDir): made here, by the task, as the sandbox lets it.
  await mkdir(results, { recursive: true });
  await writeFile(path.join(results, OUTPUTS_JSON), `${JSON.stringify(outputs, null, 2)}\n`);
  const count = new Map<string, number>([[OUTPUTS_JSON, 1]]);
  for (const f of files) count.set(path.basename(f.source), (count.get(path.basename(f.source)) ?? 0) + 1);
  const copied: { name: string; dest: string }[] = [];
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
      copied.push({ name: f.name, dest: path.relative(results, dest) });
    } catch (e) {
      problems.push(`${f.name} (${f.source}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  return { copied, problems };
}
