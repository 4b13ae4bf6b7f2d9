import { accessSync, constants, existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** A real Nextflow installed by scripts/install-nextflow.sh (bash .ci/run installs one). */
export interface RealNextflow {
  /** The launcher (RUNYARD_TEST_NEXTFLOW_BIN), for RUNYARD_NEXTFLOW_BIN. */
  bin: string;
  /** Its Nextflow home (RUNYARD_TEST_NEXTFLOW_HOME), for RUNYARD_NEXTFLOW_HOME. */
  home: string;
  /** The newest version the home holds. */
  version: string;
}

const HOW =
  'bash .ci/run installs one: scripts/install-nextflow.sh 24.10.8 <home>, then RUNYARD_TEST_NEXTFLOW_BIN=<home>/bin/nextflow RUNYARD_TEST_NEXTFLOW_HOME=<home>';

/** The real Nextflow the environment names, or why there is none (the reason a test is skipped with). */
export function realNextflow(env: NodeJS.ProcessEnv = process.env): RealNextflow | string {
  const bin = env.RUNYARD_TEST_NEXTFLOW_BIN;
  const home = env.RUNYARD_TEST_NEXTFLOW_HOME;
  if (!bin || !home) return `no real Nextflow (RUNYARD_TEST_NEXTFLOW_BIN and RUNYARD_TEST_NEXTFLOW_HOME are not set; ${HOW})`;
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    return `no real Nextflow: RUNYARD_TEST_NEXTFLOW_BIN ${bin} is not an executable file (${HOW})`;
  }
  let versions: string[] = [];
  try {
    versions = readdirSync(path.join(home, 'framework')).filter((v) =>
      existsSync(path.join(home, 'framework', v, `nextflow-${v}-one.jar`)),
    );
  } catch {
    // no framework directory
  }
  const version = versions.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1);
  if (!version)
    return `no real Nextflow: RUNYARD_TEST_NEXTFLOW_HOME ${home} holds no framework/<version>/nextflow-<version>-one.jar (${HOW})`;
  return { bin: path.resolve(bin), home: path.resolve(home), version };
}

/**
 * Why a test of the real Nextflow is skipped, or false: without an install, or on the PostgreSQL run
 * (onPostgres: database.ts's usingPostgres()), to which these tests add nothing (the database plays no
 * part in what they prove; the fixture-based job tests run on both).
 */
export function realNextflowSkip(onPostgres: boolean): string | false {
  const real = realNextflow();
  if (typeof real === 'string') return real;
  return onPostgres ? 'the SQLite run has it: the database plays no part in what it proves' : false;
}

/** One row of a Nextflow trace file (the default fields). */
export interface TraceRow {
  task_id: string;
  /** As Nextflow shows it: the first 8 hex digits of the task hash, `ab/cdef12`. */
  hash: string;
  name: string;
  status: string;
  exit: string;
}

/** The rows of a trace file (tab-separated, a header line first). */
export function readTrace(file: string): TraceRow[] {
  const [header, ...lines] = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const names = header.split('\t');
  return lines.map((line) => {
    const cells = line.split('\t');
    return Object.fromEntries(names.map((n, i) => [n, cells[i] ?? ''])) as unknown as TraceRow;
  });
}

/**
 * What a resumed run did with the first run's tasks: the hashes of the tasks the first completed,
 * those the resumed one found CACHED (both sorted), and the tasks it ran (`NAME STATUS`).
 */
export function resumeOutcome(first: TraceRow[], resumed: TraceRow[]): { completedFirst: string[]; cached: string[]; ran: string[] } {
  return {
    completedFirst: first
      .filter((t) => t.status === 'COMPLETED')
      .map((t) => t.hash)
      .sort(),
    cached: resumed
      .filter((t) => t.status === 'CACHED')
      .map((t) => t.hash)
      .sort(),
    ran: resumed.filter((t) => t.status !== 'CACHED').map((t) => `${t.name} ${t.status}`),
  };
}

/**
 * A pipeline of three processes as a repository holds it: SPLIT makes one file per number of
 * 1..params.n, UPPER upper-cases each, MERGE concatenates them once all are done (so a MERGE that
 * fails kills no running task); each publishes into params.outdir. With params.failFirst MERGE
 * fails unless the run is a resumed one. nextflow.config sets the defaults and a profile `small`.
 */
export const REAL_PIPELINE: Record<string, string> = {
  'main.nf': `process SPLIT {
  publishDir "\${params.outdir}/split", mode: 'copy'
  input:
    val x
  output:
    path "chunk_\${x}.txt"
  script:
  """
  echo "\${params.greeting} \${x}" > chunk_\${x}.txt
  """
}

process UPPER {
  publishDir "\${params.outdir}/upper", mode: 'copy'
  input:
    path f
  output:
    path "up_\${f}"
  script:
  """
  tr a-z A-Z < \${f} > up_\${f}
  """
}

process MERGE {
  publishDir params.outdir, mode: 'copy'
  input:
    path parts
  output:
    path 'merged.txt'
  script:
  """
  if \${params.failFirst && !workflow.resume}; then echo 'MERGE fails on a first run' >&2; exit 3; fi
  cat \${parts} > merged.txt
  """
}

workflow {
  Channel.of(1..params.n) | SPLIT | UPPER | toSortedList { it.name } | MERGE
}
`,
  'nextflow.config': `params {
  greeting = 'hello'
  n = 3
  failFirst = false
}
profiles {
  small { params.n = 2 }
}
`,
};
