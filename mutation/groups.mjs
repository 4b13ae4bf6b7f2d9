// The modules that carry Runyard's promises, each with the unit tests that must kill its mutants
// (docs/testing.md, "Mutation score"). A group's tests import the modules from src/ (never dist/),
// so that the mutated source is what they run.
export const GROUPS = {
  'job-state': {
    mutate: ['packages/server/src/scheduler/job-state.ts'],
    tests: ['packages/server/test/scheduler/job-state.test.ts'],
  },
};
