// StrykerJS over one group of mutation/groups.mjs (MUTATION_GROUP), run by scripts/mutation.mjs.
// The command runner runs the group's tests with Node's test runner through tsx, in Stryker's
// sandbox copy of the repository (the mutated source is compiled as it is loaded), in a bwrap
// sandbox where nothing but that copy and a private /tmp can be written.
import { GROUPS } from './groups.mjs';

const name = process.env.MUTATION_GROUP;
const group = GROUPS[name];
if (!group) throw new Error(`MUTATION_GROUP must be one of ${Object.keys(GROUPS).join(', ')}`);

export default {
  testRunner: 'command',
  // Confined: the host read-only, only the sandbox copy writable (mutation/confined-tests.sh).
  commandRunner: { command: `sh mutation/confined-tests.sh ${group.tests.join(' ')}` },
  mutate: group.mutate,
  coverageAnalysis: 'off',
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
  timeoutMS: 60_000,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  // The sandbox needs the sources and tests, not what builds and runs leave behind.
  ignorePatterns: ['/reports', '/.test-build', 'dist', '/bench/results', '.stryker-tmp'],
  disableTypeChecks: false,
};
