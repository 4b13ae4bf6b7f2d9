// Which test files use a database: those whose imports (relative ones, at any depth) reach
// test/support/database.ts, where a test gets its database (SQLite, or PostgreSQL when
// RUNYARD_TEST_DATABASE_URL is set), or that read that variable themselves. The others run the
// same whatever the database, so the PostgreSQL run of scripts/run-tests.mjs leaves them out.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function resolveImport(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`];
  return candidates.find((file) => existsSync(file) && statSync(file).isFile()) ?? null;
}

/** Which of the test files (absolute paths) depend on the database: a Set of them. */
export function databaseDependentFiles(root, testFiles) {
  const database = path.join(root, 'test/support/database.ts');
  // Every file the tests import, at any depth, with who imports it.
  const importers = new Map();
  const uses = new Set();
  const seen = new Set();
  const queue = [...testFiles];
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    if (file === database || text.includes('RUNYARD_TEST_DATABASE_URL')) uses.add(file);
    for (const match of text.matchAll(IMPORT)) {
      const next = resolveImport(file, match[1]);
      if (!next) continue;
      if (!importers.has(next)) importers.set(next, new Set());
      importers.get(next).add(file);
      queue.push(next);
    }
  }
  // Back from the files that use it, through their importers.
  const dependent = new Set(uses);
  const back = [...uses];
  while (back.length) {
    for (const importer of importers.get(back.pop()) ?? []) {
      if (dependent.has(importer)) continue;
      dependent.add(importer);
      back.push(importer);
    }
  }
  return new Set(testFiles.filter((file) => dependent.has(file)));
}
