import os from 'node:os';

/** What a command may touch of the outside world; the seam that lets a verb run with other streams. */
export interface CliContext {
  /** The environment the CLI reads RUNYARD_* from (the command line's only source besides flags and profiles). */
  env: NodeJS.ProcessEnv;
  /** The home directory that holds `.runyard/`. */
  home: string;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Data goes here. */
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  /** Hints, progress and errors go here. */
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Set by --no-color (see output/colour.ts). */
  noColor?: boolean;
}

export function processContext(): CliContext {
  return { env: process.env, home: os.homedir(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}
