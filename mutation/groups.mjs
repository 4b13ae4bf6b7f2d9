// The modules that carry Runyard's promises, each with the unit tests that must kill its mutants
// (docs/testing.md, "Mutation score"). A group's tests import the modules from src/ (never dist/),
// so that the mutated source is what they run.
export const GROUPS = {
  'job-state': {
    mutate: ['packages/server/src/scheduler/job-state.ts'],
    tests: ['packages/server/test/scheduler/job-state.test.ts'],
  },
  // The claim of queued jobs and the leases. claim.ts has a way per database: run this group with
  // RUNYARD_TEST_DATABASE_URL set (a PostgreSQL server), so that its test covers both.
  'claim-lease': {
    mutate: ['packages/server/src/scheduler/claim.ts', 'packages/server/src/scheduler/lease.ts'],
    tests: ['packages/server/test/scheduler/claim-lease.test.ts'],
  },
  // What an attempt's end records: its outcome, in one UPDATE guarded by the attempt, its lease and the move.
  settle: {
    mutate: ['packages/server/src/scheduler/settle.ts'],
    tests: ['packages/server/test/scheduler/settle-moves.test.ts'],
  },
  'git-url': {
    mutate: ['packages/server/src/git/url-policy.ts'],
    // Not url-policy.test.ts: it passes what it resolves to git ls-remote, which a mutant that accepts a bad URL sends to the network.
    tests: ['packages/server/test/git/url-policy-rules.test.ts'],
  },
  'storage-paths': {
    mutate: ['packages/server/src/storage/keys.ts'],
    tests: ['packages/server/test/storage/keys.test.ts', 'packages/server/test/storage/keys-rules.test.ts'],
  },
  // A mutant of beneath.ts once sent removeBeneath to "/" (unconfined then): runs only under confined-tests.sh.
  'no-follow': {
    mutate: ['packages/server/src/storage/beneath.ts'],
    tests: ['packages/server/test/storage/beneath.test.ts', 'packages/server/test/storage/beneath-rules.test.ts'],
  },
  'sandbox-argv': {
    mutate: ['packages/server/src/executors/sandbox/bwrap.ts'],
    tests: ['packages/server/test/executors/sandbox-argv.test.ts'],
  },
  // Who may call each route: the roles table (imported relatively by its test: the contract package
  // in node_modules is the unmutated one), its check at start, and the checks every route runs
  // (authentication, the workspace, the role).
  'route-access': {
    mutate: [
      'packages/server/src/http/route-access.ts',
      'packages/contract/src/route-roles.ts',
      'packages/server/src/http/register-routes.ts',
      'packages/server/src/services/roles.ts',
    ],
    tests: [
      'packages/server/test/route-access.test.ts',
      'packages/server/test/http/route-roles-table.test.ts',
      'packages/server/test/http/route-access-decisions.test.ts',
    ],
  },
  // Who passes the session proxy: launch tokens and cookies, the Host and Origin, and who may use the session now.
  'session-proxy': {
    mutate: [
      'packages/server/src/http/session-proxy.ts',
      'packages/server/src/http/session-ui-token.ts',
      'packages/server/src/http/cookies.ts',
      'packages/server/src/http/session-origins.ts',
      'packages/server/src/services/interactive-session-ui.ts',
    ],
    // Not sessions-runtime/session-proxy.test.ts: its waits are bounded by a minute, which a mutant
    // that stops the proxy answering spends whole; session-proxy-auth.test.ts bounds each by seconds.
    tests: ['packages/server/test/sessions-runtime/session-ui-token.test.ts', 'packages/server/test/http/session-proxy-auth.test.ts'],
  },
};
