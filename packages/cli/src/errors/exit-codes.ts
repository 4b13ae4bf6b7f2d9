/** The documented exit codes of `runyard`. */
export const EXIT = {
  OK: 0,
  ERROR: 1,
  /** Bad command line: unknown option, missing value, a required setting given nowhere. */
  USAGE: 2,
  /** A followed job (job logs --follow) was aborted. */
  ABORTED: 3,
  /** The server did not accept the API key (401). */
  AUTH: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
