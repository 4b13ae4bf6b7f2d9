import { cp, mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { localPathOf } from './call-logs.mjs';
import type { Log } from './follow.mjs';

/** A File output: its output name (`hello.greeting`), and where Cromwell has it. */
interface OutputFile {
  name: string;
  source: string;
}

function isInside(parent: string, target: string): boolean {
  const rel = path.relative(parent, target);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

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
    if (local && ((root && isInside(root, local)) || (await exists(local)))) out.push({ name, source: local });
  } else if (Array.isArray(value)) {
    for (const v of value) await outputFiles(name, v, root, out);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) await outputFiles(name, v, root, out);
  }
}

const OUTPUTS_JSON = 'outputs.json';

/**
 * Writes every output as Cromwell gives it to results/outputs.json, and copies File outputs into
 * results keeping their names; a name that more than one file has (shards' `out.txt`) goes to
 * results/<output>/<n>/<name>. Answers the files that could not be copied.
 */
export async function copyOutputs(outputs: Record<string, unknown>, root: string | null, results: string, log: Log): Promise<string[]> {
  await writeFile(path.join(results, OUTPUTS_JSON), `${JSON.stringify(outputs, null, 2)}\n`);
  const files: OutputFile[] = [];
  for (const [name, value] of Object.entries(outputs)) await outputFiles(name, value, root, files);
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
      log(`Output ${f.name}: ${path.relative(results, dest)}`);
    } catch (e) {
      problems.push(`${f.name} (${f.source}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  return problems;
}
