import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The server's layers point one way (docs: architecture.md §3): a module may import its own
 * folder and the layers below it, never a layer above it nor another folder of its own layer.
 * Top-level files count as folders of their own. A folder that is not listed fails the test, so
 * that a new one is placed on purpose.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['index.ts'],
  ['main.ts'],
  // What runs besides the API (scheduler, deletion worker), on a thread of its own or in a scheduler process.
  ['background'],
  ['app.ts'],
  ['routes'],
  // Route plumbing: authentication and the workspace check call services.
  ['http'],
  ['services'],
  ['scheduler'],
  // Engines make the TaskSpec that executors/executor.ts declares; executors never know engines.
  ['engines'],
  ['executors'],
  // Job inputs, for services (checks at submission) and engines (staged paths).
  ['staging'],
  // Container images: a store beside storage (pulled, cached, unpacked) that engines and executors will run tasks in; it imports no other folder.
  ['images', 'storage', 'store', 'git'],
  ['log-format.ts', 'version.ts', 'errors'],
  ['config.ts'],
  ['instance-types'],
];

/**
 * Imports that break the rule today, by file, each with why it is still there. The test fails
 * when one is gone, so this list can only shrink.
 */
const ALLOWED: readonly { from: string; to: string; why: string }[] = [
  // A job's paths are the scheduler's; engines only read them. Moving job-paths.ts below
  // engines touches every engine and executor: left for a change of its own.
  { from: 'engines/container.ts', to: 'scheduler/job-paths.ts', why: 'JobPaths type' },
  { from: 'engines/engine.ts', to: 'scheduler/job-paths.ts', why: 'JobPaths type' },
  { from: 'engines/nextflow.ts', to: 'scheduler/job-paths.ts', why: 'JobPaths type, isResumedWorkDir' },
  { from: 'engines/task-env.ts', to: 'scheduler/job-paths.ts', why: 'JobPaths type' },
  // Engines fetch the workflow's repository (credentials, URL policy) as the services resolve it.
  { from: 'engines/workflow-sources.ts', to: 'services/repositories.ts', why: 'resolveRepository' },
];

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) sourceFiles(full, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Relative specifiers of static imports, re-exports and dynamic imports. */
function importsOf(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) if (m[1].startsWith('.')) found.push(m[1]);
  return found;
}

interface Edge {
  from: string;
  to: string;
}

/** Every import between two folders, as paths relative to src/ with `.ts`. */
function folderEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = path.relative(SRC, file).split(path.sep).join('/');
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const to = path
        .relative(SRC, path.resolve(path.dirname(file), spec))
        .split(path.sep)
        .join('/')
        .replace(/\.js$/, '.ts');
      if (folderOf(from) !== folderOf(to)) edges.push({ from, to });
    }
  }
  return edges;
}

const folderOf = (file: string) => file.split('/')[0];
const rankOf = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder));
const isAllowed = (e: Edge) => ALLOWED.some((a) => a.from === e.from && a.to === e.to);

describe('layers of the server', () => {
  const edges = folderEdges();

  it('places every folder of src/ in a layer', () => {
    const folders = new Set(sourceFiles(SRC).map((f) => folderOf(path.relative(SRC, f).split(path.sep).join('/'))));
    assert.deepEqual(
      [...folders].filter((f) => rankOf(f) < 0),
      [],
    );
  });

  it('imports only downwards', () => {
    const upward = edges.filter((e) => !isAllowed(e) && rankOf(folderOf(e.from)) >= rankOf(folderOf(e.to)));
    assert.deepEqual(
      upward.map((e) => `${e.from} -> ${e.to}`),
      [],
    );
  });

  it('has no cycle between folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of edges.filter((x) => !isAllowed(x))) {
      const from = folderOf(e.from);
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(folderOf(e.to));
    }
    const reaches = (start: string, goal: string) => {
      const seen = new Set<string>();
      const stack = [start];
      while (stack.length) {
        const at = stack.pop()!;
        if (at === goal) return true;
        if (seen.has(at)) continue;
        seen.add(at);
        stack.push(...(graph.get(at) ?? []));
      }
      return false;
    };
    const cycles = [...graph].flatMap(([from, tos]) => [...tos].filter((to) => reaches(to, from)).map((to) => `${from} <-> ${to}`));
    assert.deepEqual(cycles, []);
  });

  it('lists only exceptions that still exist', () => {
    const stale = ALLOWED.filter((a) => !edges.some((e) => e.from === a.from && e.to === a.to));
    assert.deepEqual(
      stale.map((a) => `${a.from} -> ${a.to}`),
      [],
    );
  });

  it('reads imports of every form', () => {
    const text = [
      "import a from './a.js';",
      "import type {\n  B,\n  C,\n} from '../b.js';",
      "export { d } from './d.js';",
      "import './side-effect.js';",
      "const e = await import('./e.js');",
      "import x from 'node:fs';",
    ].join('\n');
    assert.deepEqual(importsOf(text).sort(), ['../b.js', './a.js', './d.js', './e.js', './side-effect.js']);
  });
});
