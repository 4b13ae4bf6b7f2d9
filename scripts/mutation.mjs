#!/usr/bin/env node
// `npm run mutation [group...]`: StrykerJS over each group of mutation/groups.mjs (all by default),
// one after the other, then a table of each mutated file's score (killed + timed out, of the
// mutants that ran). Not part of CI: a group takes minutes. Figures go in docs/testing.md.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GROUPS } from '../mutation/groups.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const wanted = process.argv.slice(2);
for (const name of wanted) if (!GROUPS[name]) throw new Error(`no mutation group ${name} (${Object.keys(GROUPS).join(', ')})`);
const names = wanted.length ? wanted : Object.keys(GROUPS);

const rows = [];
for (const name of names) {
  const run = spawnSync('npx', ['stryker', 'run', 'mutation/stryker.config.mjs'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, MUTATION_GROUP: name },
  });
  if (run.status !== 0) {
    rows.push({ group: name, file: '(Stryker failed)', killed: 0, survived: 0, noCoverage: 0, score: NaN });
    continue;
  }
  const report = JSON.parse(readFileSync(path.join(root, 'reports', 'mutation', `${name}.json`), 'utf8'));
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const count = (...statuses) => mutants.filter((m) => statuses.includes(m.status)).length;
    const killed = count('Killed', 'Timeout');
    const survived = count('Survived');
    const noCoverage = count('NoCoverage');
    rows.push({ group: name, file, killed, survived, noCoverage, score: (100 * killed) / Math.max(1, killed + survived + noCoverage) });
  }
}
console.log('\ngroup | file | killed | survived | no coverage | score');
for (const r of rows) console.log(`${r.group} | ${r.file} | ${r.killed} | ${r.survived} | ${r.noCoverage} | ${r.score.toFixed(1)}%`);
const low = rows.filter((r) => !(r.score >= 80));
console.log(low.length ? `\n${low.length} file(s) under 80%` : '\nevery file at 80% or more');
process.exit(low.length ? 1 : 0);
