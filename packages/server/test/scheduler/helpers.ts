import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isoNow, newObjectId, type JobStatus } from '@runyard/contract';
import { sql, type Insertable, type Selectable } from 'kysely';
import { loadConfig, type Config } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import type { JobTable, WorkflowTable } from '../../src/store/schema.js';
import { canTransition } from '../../src/scheduler/job-state.js';
import { jobPaths, type JobPaths } from '../../src/scheduler/job-paths.js';
import { Scheduler, type SchedulerOptions } from '../../src/scheduler/scheduler.js';
import { SILENT_LOG, type SchedulerContext } from '../../src/scheduler/context.js';
import { engineFor } from '../../src/engines/registry.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { LocalExecutor } from '../../src/executors/local.js';
import type { TaskSpec } from '../../src/executors/executor.js';
import { createSandbox, type Sandbox } from '../../src/executors/sandbox/sandbox.js';
import { freshDatabaseUrl } from '../../../../test/support/database.js';
import { nextflowHomeEnv } from '../../../../test/support/nextflow-home.js';
import { TEST_CAPACITY } from '../../../../test/support/capacity.js';
import { TEST_JOB_IMAGES } from '../../../../test/support/job-images.js';
import { workflowRow } from '../engines/rows.js';
import { serverImageCache } from '../../src/scheduler/image-use.js';

/** test/fixtures/bin: the fixture nextflow. */
export const FIXTURE_BIN = path.resolve(import.meta.dirname, '../../../../test/fixtures/bin');

export interface Env {
  databaseUrl: string;
  store: Store;
  config: Config;
  workspaceId: string;
  userId: string;
  projectId: string;
  queueId: string;
  /** A scratch directory for markers that tasks write: the one directory outside its own that a sandboxed task may write here. */
  scratch: string;
  schedulers: Scheduler[];
  /** A scheduler on this database (stopped by close()). */
  scheduler(options?: Partial<SchedulerOptions>): Scheduler;
  /** Stops every scheduler so far as a crash would (leases kept). */
  stopSchedulers(): Promise<void>;
  close(): Promise<void>;
}

/** Test configuration: short poll and lease, the fixture bin first on the task PATH. */
export function testConfig(env: NodeJS.ProcessEnv = {}): Config {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-sched-'));
  return loadConfig({
    RUNYARD_DATA_DIR: dataDir,
    RUNYARD_SCHEDULER_POLL_MS: '50',
    RUNYARD_SCHEDULER_LEASE_MS: '1500',
    RUNYARD_ABORT_GRACE_MS: '1000',
    RUNYARD_TASK_PATH: `${FIXTURE_BIN}:${process.env.PATH}`,
    PATH: process.env.PATH,
    ...nextflowHomeEnv(),
    ...TEST_CAPACITY,
    ...TEST_JOB_IMAGES,
    ...env,
  });
}

/** The server's sandbox, which also lets tasks write `dir` (the scheduler tests' markers): what is tested is scheduling, confined as on a server. */
function withWritable(sandbox: Sandbox, dir: string): Sandbox {
  const more = (task: TaskSpec): TaskSpec => ({ ...task, writable: [...(task.writable ?? []), dir] });
  const { statusArgv, prepare } = sandbox;
  return {
    ...sandbox,
    argv: (task) => sandbox.argv(more(task)),
    statusArgv: statusArgv && ((task, fd, lease) => statusArgv(more(task), fd, lease)),
    prepare: prepare && ((task) => prepare(more(task))),
  };
}

/** The local executor of the scheduler tests: the configured sandbox, with `scratch` writable. */
export function testExecutor(config: Config, scratch: string): LocalExecutor {
  return new LocalExecutor(undefined, withWritable(createSandbox(config), scratch));
}

/** Records every status change of every job (a trigger), so tests can check each one against job-state.ts. */
async function installStatusLog(store: Store): Promise<void> {
  if (store.kind === 'sqlite') {
    await sql`create table test_status_log (seq integer primary key autoincrement, job_id text, from_status text, to_status text, attempt integer)`.execute(
      store.db,
    );
    await sql`create trigger test_status_log_t after update of status on jobs when old.status <> new.status begin
      insert into test_status_log (job_id, from_status, to_status, attempt) values (new.id, old.status, new.status, new.attempt); end`.execute(
      store.db,
    );
    return;
  }
  await sql`create table test_status_log (seq serial primary key, job_id text, from_status text, to_status text, attempt integer)`.execute(
    store.db,
  );
  await sql`create function test_status_log_f() returns trigger as $$ begin
      if old.status <> new.status then
        insert into test_status_log (job_id, from_status, to_status, attempt) values (new.id, old.status, new.status, new.attempt);
      end if;
      return new; end $$ language plpgsql`.execute(store.db);
  await sql`create trigger test_status_log_t after update on jobs for each row execute function test_status_log_f()`.execute(store.db);
}

/**
 * A fresh database (SQLite, or PostgreSQL with RUNYARD_TEST_DATABASE_URL; sqlite: SQLite whatever that says) with a user,
 * workspace, project and local queue.
 */
export async function setup(options: { env?: NodeJS.ProcessEnv; concurrency?: number; sqlite?: boolean } = {}): Promise<Env> {
  const config = testConfig(options.env);
  const databaseUrl = options.sqlite
    ? `sqlite:${path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-db-')), 'runyard.db')}`
    : await freshDatabaseUrl();
  const store = openStore(databaseUrl);
  await migrateToLatest(store.db);
  await installStatusLog(store);
  const now = isoNow();
  const userId = newObjectId();
  const workspaceId = newObjectId();
  const projectId = newObjectId();
  const queueId = newObjectId();
  await store.db
    .insertInto('users')
    .values({
      id: userId,
      username: `u${userId}`,
      email: `${userId}@example.org`,
      name: 'T',
      surname: 'T',
      is_admin: 0,
      active: 1,
      created_at: now,
    })
    .execute();
  await store.db.insertInto('workspaces').values({ id: workspaceId, name: 'ws', created_at: now }).execute();
  await store.db
    .insertInto('projects')
    .values({ id: projectId, workspace_id: workspaceId, name: 'p', user_id: userId, created_at: now, updated_at: now })
    .execute();
  await insertQueue(store, workspaceId, queueId, options.concurrency ?? 4);
  const schedulers: Scheduler[] = [];
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-scratch-'));
  return {
    databaseUrl,
    store,
    config,
    workspaceId,
    userId,
    projectId,
    queueId,
    scratch,
    schedulers,
    scheduler(options = {}) {
      const executors = { local: testExecutor(config, scratch) };
      const s = new Scheduler({ store, config, executors, ...options });
      schedulers.push(s);
      return s;
    },
    async stopSchedulers() {
      for (const s of schedulers) await s.stop({ releaseLeases: false });
    },
    async close() {
      for (const s of schedulers) await s.stop({ releaseLeases: false });
      await store.close();
    },
  };
}

/** What a scheduler gives its parts (claim, leases, settle), for calling them directly as the scheduler `owner`. */
export function schedulerContext(env: Env, owner: string, more: Partial<SchedulerContext> = {}): SchedulerContext {
  return {
    db: env.store.db,
    kind: env.store.kind,
    config: env.config,
    owner,
    executors: { local: testExecutor(env.config, env.scratch) },
    engineFor,
    blobs: createBlobStore(env.config),
    images: serverImageCache(env.config, env.store.db),
    log: SILENT_LOG,
    signal: new AbortController().signal,
    ...more,
  };
}

export async function insertQueue(store: Store, workspaceId: string, id: string, concurrency: number, backend = 'local'): Promise<void> {
  const now = isoNow();
  await store.db
    .insertInto('queues')
    .values({
      id,
      workspace_id: workspaceId,
      name: `q-${id}`,
      label: 'q',
      description: '',
      executor: 'nextflow',
      backend,
      concurrency,
      is_default: 0,
      is_system: 0,
      status: 'Ready',
      created_at: now,
      updated_at: now,
    })
    .execute();
}

export async function insertWorkflow(env: Env, values: Partial<Insertable<WorkflowTable>> = {}): Promise<string> {
  const id = newObjectId();
  const now = isoNow();
  const row = workflowRow({ id, workspace_id: env.workspaceId, user_id: env.userId, name: `wf-${id}`, created_at: now, updated_at: now });
  await env.store.db
    .insertInto('workflows')
    .values({ ...row, ...values })
    .execute();
  return id;
}

export interface TextParameter {
  name: string;
  prefix?: string;
  textValue: string | number | boolean;
}

/** Inserts a queued job as the job service does; answers its id. */
export async function insertJob(
  env: Env,
  workflowId: string,
  values: Partial<Insertable<JobTable>> & { parameters?: TextParameter[] } = {},
): Promise<string> {
  const { parameters = [], ...rest } = values;
  const id = newObjectId();
  const now = new Date().toISOString();
  const workflow = await env.store.db
    .selectFrom('workflows')
    .select('workflow_type')
    .where('id', '=', workflowId)
    .executeTakeFirstOrThrow();
  await env.store.db
    .insertInto('jobs')
    .values({
      id,
      workspace_id: env.workspaceId,
      project_id: env.projectId,
      workflow_id: workflowId,
      user_id: env.userId,
      queue_id: env.queueId,
      name: `job-${id}`,
      status: 'queued',
      job_type: workflow.workflow_type === 'docker' ? 'dockerAWS' : 'nextflowAWS',
      workflow_type: workflow.workflow_type,
      execution_platform: 'aws',
      request_json: '{}',
      parameters_json: JSON.stringify(
        parameters.map((p) => ({ name: p.name, prefix: p.prefix ?? '--', parameterKind: 'textValue', textValue: p.textValue })),
      ),
      revision_json: '{}',
      profile: null,
      nextflow_version: null,
      command: null,
      resource_cpu: 1,
      resource_ram: 1,
      instance_type: null,
      storage_size_gb: 10,
      cost_limit: -1,
      resumable: 0,
      save_process_logs: 1,
      batch_enabled: 0,
      archived_at: null,
      lease_owner: null,
      lease_expires_at: null,
      external_id: null,
      exit_code: null,
      status_message: null,
      resume_work_dir: null,
      created_at: now,
      updated_at: now,
      start_time: null,
      end_time: null,
      ...rest,
    })
    .execute();
  return id;
}

export function getJob(env: Env, id: string): Promise<Selectable<JobTable>> {
  return env.store.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export function pathsOf(env: Env, id: string): JobPaths {
  return jobPaths(env.config.dataDir, env.workspaceId, id);
}

export function stdoutOf(env: Env, id: string): string {
  try {
    return readFileSync(path.join(pathsOf(env, id).logs, 'stdout.txt'), 'utf8');
  } catch {
    return '';
  }
}

/** Polls until check answers a value other than undefined/false, or fails after timeoutMs. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

export async function waitForStatus(env: Env, id: string, statuses: JobStatus[], timeoutMs = 15_000): Promise<Selectable<JobTable>> {
  return waitFor(
    `job ${id} to be ${statuses.join(' or ')}`,
    async () => {
      const job = await getJob(env, id);
      return statuses.includes(job.status as JobStatus) ? job : undefined;
    },
    timeoutMs,
  ).catch(async (e: Error) => {
    const job = await getJob(env, id);
    throw new Error(`${e.message}; it is ${job.status} (${job.status_message ?? ''}); log:\n${stdoutOf(env, id)}`);
  });
}

export interface StatusChange {
  from: JobStatus;
  to: JobStatus;
  attempt: number;
}

export async function statusHistory(env: Env, id: string): Promise<StatusChange[]> {
  const { rows } = await sql<{ from_status: JobStatus; to_status: JobStatus; attempt: number }>`
    select from_status, to_status, attempt from test_status_log where job_id = ${id} order by seq`.execute(env.store.db);
  return rows.map((r) => ({ from: r.from_status, to: r.to_status, attempt: Number(r.attempt) }));
}

/** Every status change of the job was legal (job-state.ts), and it reached exactly one final status once. */
export async function assertLegalHistory(env: Env, id: string): Promise<StatusChange[]> {
  const history = await statusHistory(env, id);
  for (const change of history)
    assert.ok(canTransition(change.from, change.to), `illegal transition ${change.from} -> ${change.to} in ${JSON.stringify(history)}`);
  const outcomes = history.filter((c) => ['completed', 'failed', 'aborted'].includes(c.to));
  assert.equal(outcomes.length, 1, `expected one recorded outcome, got ${JSON.stringify(history)}`);
  return history;
}
