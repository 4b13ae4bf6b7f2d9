// The corpus of real-world bash commands (corpus.ts), each run through a real server process (SQLite, or PostgreSQL
// in the PostgreSQL run) as a bash job and as the row of a bash array job, on the local executor and on the machine's
// Slurm dev cluster: what each prints, its exit code, whether its parameters were appended or positional, and the
// files it leaves in its work directory are exactly the corpus's.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { POSITIONAL_NOTE } from '../../src/engines/bash-arguments.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { freshDatabaseUrl } from '../../../../test/support/database.js';
import { running, startMain, stop, type ServerProcess } from '../../../../test/support/server-process.js';
import { sharedDirectory, slurmClusterUp } from '../../../../test/support/slurm-cluster.js';
import { uploadFile } from '../../../../test/support/upload.js';
import { CORPUS, type CorpusEntry, type CorpusParam } from './corpus.js';

/** The programs of a Debian host, whatever the PATH of the test's own environment (pyenv shims, tool folders). */
const TASK_PATH = '/usr/local/bin:/usr/bin:/bin';
/** Small jobs, so that many run at once on the local executor and fit the dev cluster's memory side by side. */
const RESOURCES = { cpu: 1, ram: 0.5 };
/** Longest a job may take from its submission, queueing behind the others included. */
const JOB_DEADLINE_MS = 300_000;

/** What a job (or an array job's row) left: its status, its exit code, its output and the files the entry names. */
interface Outcome {
  status: string;
  /** The Slurm job that ran it; null on the local executor. */
  slurmJobId: string | null;
  exitCode: number | null;
  /** The row's or the job's log, as written. */
  log: string;
  files: Record<string, string | null>;
  /** For an array job: the job's own log, with its `=== task` lines. */
  jobLog?: string;
}

interface CorpusServer {
  server: ServerProcess;
  /** Runs the entry as a bash job; answers what it left. */
  runJob(entry: CorpusEntry): Promise<Outcome>;
  /** Runs the entry as the one row of a bash array job, its parameters (but those with a newline) columns of the array file. */
  runArrayRow(entry: CorpusEntry): Promise<Outcome>;
  close(): Promise<void>;
}

async function startCorpusServer(slurm: boolean): Promise<CorpusServer> {
  if (slurm) slurmClusterUp();
  // On Slurm the data directory is in the cluster's shared directory (one node: any local directory).
  const shared = slurm ? sharedDirectory() : null;
  const dataDir = path.join(mkdtempSync(path.join(shared ?? os.tmpdir(), 'runyard-corpus-')), 'data');
  const server = startMain({
    RUNYARD_DATA_DIR: dataDir,
    RUNYARD_PORT: '0',
    RUNYARD_DATABASE_URL: await freshDatabaseUrl(),
    RUNYARD_LOG_LEVEL: 'warn',
    RUNYARD_SCHEDULER_POLL_MS: '100',
    RUNYARD_TASK_PATH: TASK_PATH,
    // No command of the corpus uses the network: none spares each task its own outbound network.
    RUNYARD_TASK_NETWORK: 'none',
    ...(slurm && { RUNYARD_SLURM_POLL_MS: '300' }),
  });
  const base = (await server.waitFor(/is listening on (\S+)/))[1];
  const key = (await server.waitFor(/API key: +(\S+)/))[1];
  const ws = (await server.waitFor(/Workspace id: +([0-9a-f]{24})/))[1];
  const ok = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(`${base}${url}`, {
      method,
      headers: { apikey: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const project = (await ok('POST', `/api/v1/projects?teamId=${ws}`, { name: 'corpus' }))._id as string;
  const workflow = (
    await ok('POST', '/api/runyard/admin/workflows/docker', { workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu' })
  )._id as string;
  const placement = shared
    ? {
        executionPlatform: 'hpc',
        hpc: (await ok('POST', '/api/runyard/admin/hpc', { name: 'dev', partitions: ['debug', 'batch'], sharedDirectory: shared })).id,
      }
    : { executionPlatform: 'aws' };
  const waiter = new JobWaiter((id) => ok('GET', `/api/v1/jobs/${id}?teamId=${ws}`));
  let jobs = 0;

  const submit = async (entry: CorpusEntry, parameters: unknown[], extra: Record<string, unknown> = {}) => {
    const { jobId } = await ok('POST', `/api/v2/jobs?teamId=${ws}`, {
      project,
      workflow,
      name: `corpus-${++jobs}`,
      command: entry.command,
      parameters,
      resourceRequirements: RESOURCES,
      ...placement,
      ...extra,
    });
    return jobId as string;
  };
  const filesOf = (entry: CorpusEntry, id: string) => {
    const work = jobPaths(dataDir, ws, id).work;
    return Object.fromEntries(Object.keys(entry.files ?? {}).map((name) => [name, readOrNull(path.join(work, name))]));
  };

  return {
    server,
    async runJob(entry) {
      const id = await submit(entry, (entry.params ?? []).map(textParameter));
      const doc = await waiter.ended(id);
      const log = readOrNull(path.join(jobPaths(dataDir, ws, id).logs, 'stdout.txt')) ?? '';
      return { status: doc.status, slurmJobId: slurmJobIdOf(doc), exitCode: doc.exitCode ?? null, log, files: filesOf(entry, id) };
    },
    async runArrayRow(entry) {
      const params = entry.params ?? [];
      // A value with a line end cannot be a field of the file: it stays a parameter of the job, given to every row.
      const columns = params.filter((p) => !p.textValue.includes('\n'));
      const header = columns.length ? columns.map((p) => p.name) : ['row'];
      const row = columns.length ? columns.map((p) => p.textValue) : ['0'];
      const text = `${header.map(csvField).join(',')}\n${row.map(csvField).join(',')}\n`;
      const fileId = await uploadFile(base, key, { workspaceId: ws, projectId: project }, `rows-${++jobs}.csv`, text);
      const parameters = params.map((p) =>
        columns.includes(p)
          ? {
              prefix: p.prefix ?? '--',
              name: p.name,
              parameterKind: 'arrayFileColumn',
              columnName: p.name,
              columnIndex: columns.indexOf(p),
            }
          : textParameter(p),
      );
      const id = await submit(entry, parameters, { arrayFile: { dataItem: { kind: 'File', item: fileId }, separator: ',' } });
      const doc = await waiter.ended(id);
      const logs = jobPaths(dataDir, ws, id).logs;
      const jobLog = readOrNull(path.join(logs, 'stdout.txt')) ?? '';
      // The row's exit code is in the job's log, on the line that its output follows.
      const code = /=== task 0: exit code (\d+) ===\n/.exec(jobLog);
      return {
        status: doc.status,
        slurmJobId: slurmJobIdOf(doc),
        exitCode: code ? Number(code[1]) : null,
        log: readOrNull(path.join(logs, 'tasks', 'task-0.log')) ?? '',
        files: filesOf(entry, id),
        jobLog,
      };
    },
    async close() {
      waiter.stop();
      await stop(server);
    },
  };
}

/**
 * Waits for many jobs with one loop that asks only for the jobs still running, a few at a time: a poller per job
 * would load the server that runs them.
 */
class JobWaiter {
  private pending = new Map<string, { since: number; resolve: (doc: any) => void; reject: (e: Error) => void }>();
  private polling = false;
  private stopped = false;
  constructor(private readonly get: (id: string) => Promise<any>) {}

  ended(id: string): Promise<any> {
    const done = new Promise((resolve, reject) => this.pending.set(id, { since: Date.now(), resolve, reject }));
    if (!this.polling) void this.loop();
    return done;
  }

  stop(): void {
    this.stopped = true;
  }

  private async loop(): Promise<void> {
    this.polling = true;
    while (this.pending.size && !this.stopped) {
      const ids = [...this.pending.keys()];
      for (let i = 0; i < ids.length; i += 8) {
        await Promise.all(
          ids.slice(i, i + 8).map(async (id) => {
            const waiting = this.pending.get(id)!;
            try {
              const doc = await this.get(id);
              if (['completed', 'failed', 'aborted'].includes(doc.status)) {
                this.pending.delete(id);
                waiting.resolve(doc);
              } else if (Date.now() - waiting.since > JOB_DEADLINE_MS) {
                this.pending.delete(id);
                waiting.reject(new Error(`job ${id} did not end within ${JOB_DEADLINE_MS / 1000} s (status ${doc.status})`));
              }
            } catch (e) {
              this.pending.delete(id);
              waiting.reject(e as Error);
            }
          }),
        );
      }
      await sleep(250);
    }
    this.polling = false;
  }
}

function slurmJobIdOf(doc: any): string | null {
  return doc.hpcCluster?.slurmJobId ?? null;
}

function textParameter(p: CorpusParam) {
  return { prefix: p.prefix ?? '--', name: p.name, parameterKind: 'textValue', textValue: p.textValue };
}

/** A field of the array file, always quoted (values hold commas, quotes and spaces). */
function csvField(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The log without Runyard's own lines (its notes before the task's output, and the positional note). */
function withoutRunyardLines(log: string): string {
  return log
    .split(/(?<=\n)/)
    .filter((line) => !line.startsWith('Runyard: '))
    .join('');
}

/** Asserts that a job (or row) did what the entry says, naming the entry, its command and both outputs when not. */
function check(entry: CorpusEntry, outcome: Outcome, array: boolean, slurm: boolean): void {
  const expectedCode = entry.exitCode ?? 0;
  const actual = withoutRunyardLines(outcome.log);
  const params = (entry.params ?? []).map((p) => `${p.prefix ?? '--'}${p.name}=${JSON.stringify(p.textValue)}`).join(' ');
  const about = (what: string, expected: unknown, got: unknown) =>
    `${entry.name}: ${what}\ncommand:\n${entry.command}\nparameters: ${params || '(none)'}\n` +
    `expected: ${JSON.stringify(expected)}\nactual:   ${JSON.stringify(got)}\nlog:\n${outcome.log}` +
    (outcome.jobLog ? `\njob log:\n${outcome.jobLog}` : '');
  // Where it ran: a Slurm job of the dev cluster, or the local executor.
  assert.equal(outcome.slurmJobId !== null, slurm, about('ran on Slurm', slurm, outcome.slurmJobId));
  assert.equal(actual, entry.stdout, about('stdout', entry.stdout, actual));
  assert.equal(outcome.exitCode, expectedCode, about('exit code', expectedCode, outcome.exitCode));
  // An array job whose only row failed failed; a job, as its command's exit code says.
  const status = expectedCode === 0 ? 'completed' : 'failed';
  assert.equal(outcome.status, status, about(`status (${array ? 'array job' : 'job'})`, status, outcome.status));
  const positional = outcome.log.includes(POSITIONAL_NOTE);
  assert.equal(
    positional,
    Boolean(entry.positional),
    about('parameters positional (the log notes it)', Boolean(entry.positional), positional),
  );
  for (const [name, text] of Object.entries(entry.files ?? {}))
    assert.equal(outcome.files[name], text, about(`the file ${name} of the work directory`, text, outcome.files[name]));
}

/** A promise's outcome, kept until a test asks for it (a job that failed to run fails its own test only). */
type Settled<T> = { value: T } | { error: unknown };
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
const valueOf = <T>(s: Settled<T>): T => {
  if ('error' in s) throw s.error;
  return s.value;
};

const WHERE = [
  { slurm: false, title: 'on the local executor' },
  { slurm: true, title: 'on the Slurm dev cluster' },
];
const MODES = [
  { array: false, title: 'as a bash job' },
  { array: true, title: 'as the row of a bash array job' },
];

it('the corpus has at least 50 entries, with distinct names (a test is known by its name)', () => {
  assert.ok(CORPUS.length >= 50, `${CORPUS.length} entries`);
  assert.equal(new Set(CORPUS.map((e) => e.name)).size, CORPUS.length);
});

for (const { slurm, title } of WHERE) {
  describe(`the bash corpus (${CORPUS.length} real-world commands) ${title}`, { timeout: 600_000 }, () => {
    let corpus: CorpusServer;
    const outcomes = new Map<string, Promise<Settled<Outcome>>>();
    const keyOf = (array: boolean, entry: CorpusEntry) => `${array}:${entry.name}`;

    before(async () => {
      corpus = await startCorpusServer(slurm);
      // Everything is submitted at once and runs as the queue allows; each test then waits for its own job.
      for (const entry of CORPUS) {
        outcomes.set(keyOf(false, entry), settle(corpus.runJob(entry)));
        outcomes.set(keyOf(true, entry), settle(corpus.runArrayRow(entry)));
      }
    });
    after(async () => {
      // Every job ended (or timed out) before the server stops.
      await Promise.all(outcomes.values());
      await corpus?.close();
      // A server whose start failed half way is not left running.
      for (const child of running) child.kill('SIGKILL');
    });

    for (const { array, title: mode } of MODES) {
      for (const entry of CORPUS) {
        it(`${mode}: ${entry.name}`, async () => {
          check(entry, valueOf(await outcomes.get(keyOf(array, entry))!), array, slurm);
        });
      }
    }
  });
}
