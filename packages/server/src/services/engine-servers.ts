import { createHash, randomBytes } from 'node:crypto';
import {
  ENGINE_ACTIONS,
  isoNow,
  newObjectId,
  type EngineAction,
  type EngineServer,
  type EngineSetBody,
  type EngineStatus,
  type EngineToken,
} from '@runyard/contract';
import type { Kysely, Selectable } from 'kysely';
import { defaultWdlEngine, type Config } from '../config.js';
import {
  cromwellServerState,
  isManagedCromwell,
  isManagedCromwellRecord,
  launchCromwellServer,
  removeEndedInputs,
  serverUrlOf,
  stopCromwellServer,
  waitUntilReady,
  type ManagedCromwell,
} from '../engines/wdl/cromwell-server.js';
import type { EngineServerInfo, WdlDriverName } from '../engines/wdl/driver.js';
import { EngineError } from '../errors/engine-error.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { seal, unseal } from '../store/secret-box.js';
import type { Database, EngineServerTable } from '../store/schema.js';
import type { AuthUser } from './context.js';
import { cromwellUrlOf, driverProblem } from './engine-check.js';

/**
 * The WDL engine server of a workspace (CloudOS's Cromwell server, `GET /api/v1/cromwell`): one
 * row per workspace, made on first use, stopped, with the driver (and Cromwell URL) of the
 * configuration and an engine token of its own. Its lifecycle is stored, so that it outlives a
 * restart of Runyard:
 *
 * - restart: Starting, then Running once the driver can run (its program on the task PATH, or
 *   its Cromwell server answering), else Stopped again with the reason in status_message;
 * - stop: Stopped at once when no WDL job of the workspace is under way, else Stopping until they
 *   end (checked lazily: on each GET, at each WDL submission, and by settleEngineStop);
 * - WDL jobs are refused while it is Stopped or Stopping, accepted (queued) while it starts or runs;
 *   the scheduler prepares one only while it runs (engineReady).
 *
 * A cromwell server without a URL, when the operator gives a jar (cromwellJar), is one Runyard
 * runs (engines/wdl/cromwell-server.ts): restart launches it and answers Starting at once, Running
 * follows when it answers (or Stopped with why it did not); its process is kept in process_json
 * (a restarted Runyard finds it again) and its URL in url while it runs; Stopped stops it. A
 * server whose process ended is found Stopped, with why, by the next reader (and by the
 * background's sweep, settleEngineServers).
 */

type Row = Selectable<EngineServerTable>;

/** WDL jobs in these states still use the engine: a stop waits for them. */
const ACTIVE_JOB_STATUSES = ['scheduled', 'initializing', 'running', 'aborting'];

/** What a Bearer token looks like: `ryc_` and 32 random bytes, base64url. */
const TOKEN_PATTERN = /^ryc_[A-Za-z0-9_-]{43}$/;

export const ENGINE_STOPPED_MESSAGE =
  'The workspace\'s WDL engine server is stopped: start it with "runyard cromwell start" (PUT /api/v1/cromwell/restart), then submit again.';

export function newEngineToken(): string {
  return `ryc_${randomBytes(32).toString('base64url')}`;
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The process of a server Runyard runs, as process_json keeps it; null for others. */
function managedOf(row: Pick<Row, 'process_json'>): ManagedCromwell | null {
  if (!row.process_json) return null;
  try {
    const value: unknown = JSON.parse(row.process_json);
    return isManagedCromwellRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** Whether the row's server is (or would be, once started) one Runyard runs. */
function isManaged(config: Config, row: Row): boolean {
  return row.process_json !== null || isManagedCromwell(config, row.driver, row.url);
}

function toWire(row: Row): EngineServer {
  const managed = managedOf(row);
  return {
    _id: row.id,
    status: row.status as EngineStatus,
    driver: row.driver as WdlDriverName,
    ...(row.url && { url: row.url }),
    workspace: row.workspace_id,
    ...(row.status_message && { statusMessage: row.status_message }),
    ...(managed && { managedProcess: { host: managed.host, port: managed.port, startedAt: managed.startedAt } }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function rowOf(db: Kysely<Database>, workspaceId: string): Promise<Row | undefined> {
  return db.selectFrom('engine_servers').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst();
}

/** The driver a new engine server gets: RUNYARD_WDL_ENGINE, or what is installed. */
function configuredDriver(config: Config): WdlDriverName {
  return (config.wdlEngine || defaultWdlEngine(config.taskPath)) as WdlDriverName;
}

/** The workspace's engine server row, made (Stopped, with the configured driver and a new token) on first use. */
async function engineServerRow(db: Kysely<Database>, config: Config, workspaceId: string): Promise<Row> {
  const existing = await rowOf(db, workspaceId);
  if (existing) return existing;
  const driver = configuredDriver(config);
  const token = newEngineToken();
  const now = isoNow();
  await db
    .insertInto('engine_servers')
    .values({
      id: newObjectId(),
      workspace_id: workspaceId,
      driver,
      status: 'Stopped',
      url: driver === 'cromwell' ? config.cromwellUrl || null : null,
      process_json: null,
      token_hash: tokenHash(token),
      token_sealed: seal(config.secretKeyFile, token),
      status_message: null,
      created_at: now,
      updated_at: now,
    })
    // Two first uses at once: the first row wins.
    .onConflict((oc) => oc.column('workspace_id').doNothing())
    .execute();
  return (await rowOf(db, workspaceId))!;
}

async function activeWdlJobs(db: Kysely<Database>, workspaceId: string): Promise<number> {
  const r = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('workflow_type', '=', 'wdl')
    .where('status', 'in', ACTIVE_JOB_STATUSES)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Moves the row from one status to another, unless something else moved it first; the row as it then is. */
async function move(db: Kysely<Database>, row: Row, from: EngineStatus[], set: Partial<Row> & { status: EngineStatus }): Promise<Row> {
  await db
    .updateTable('engine_servers')
    .set({ ...set, updated_at: isoNow() })
    .where('id', '=', row.id)
    .where('status', 'in', from)
    .execute();
  return (await db.selectFrom('engine_servers').selectAll().where('id', '=', row.id).executeTakeFirst())!;
}

/**
 * Moves the row to Stopped (with why, when a message is given); a server Runyard runs is then
 * stopped, and its URL (its port's) forgotten.
 */
async function stop(db: Kysely<Database>, config: Config, row: Row, from: EngineStatus[], message: string | null): Promise<Row> {
  const managed = managedOf(row);
  const after = await move(db, row, from, {
    status: 'Stopped',
    status_message: message,
    ...(managed && { url: null, process_json: null }),
  });
  if (managed && after.status === 'Stopped' && after.process_json === null) await stopCromwellServer(config, managed);
  return after;
}

/**
 * A stopping engine server whose WDL jobs have all ended is stopped. Called on each GET and WDL
 * submission, and by the background's sweep (settleEngineServers).
 */
export async function settleEngineStop(db: Kysely<Database>, config: Config, workspaceId: string): Promise<void> {
  const row = await rowOf(db, workspaceId);
  if (row?.status === 'Stopping' && (await activeWdlJobs(db, workspaceId)) === 0) await stop(db, config, row, ['Stopping'], null);
}

/** A running server of Runyard's whose process has ended is Stopped, with why. */
async function settleManagedProcess(db: Kysely<Database>, config: Config, row: Row): Promise<Row> {
  const managed = managedOf(row);
  if (!managed || row.status !== 'Running') return row;
  const seen = await cromwellServerState(config, managed);
  if (seen.state !== 'ended') return row;
  return stop(db, config, row, ['Running'], `The Cromwell server stopped: ${seen.why}\nStart it again with "runyard cromwell start".`);
}

/** Whether an attempt of a job still runs (its inputs are still needed). */
async function attemptRuns(db: Kysely<Database>, jobId: string, attempt: number): Promise<boolean> {
  const job = await db.selectFrom('jobs').select(['status', 'attempt']).where('id', '=', jobId).executeTakeFirst();
  return job !== undefined && job.attempt === attempt && ACTIVE_JOB_STATUSES.includes(job.status);
}

/**
 * The background's sweep: stops the stopping servers whose jobs have ended, and finds the
 * servers of Runyard's whose process has ended.
 */
export async function settleEngineServers(db: Kysely<Database>, config: Config): Promise<void> {
  const rows = await db.selectFrom('engine_servers').selectAll().where('status', 'in', ['Stopping', 'Running']).execute();
  for (const row of rows) {
    if (row.status === 'Stopping') await settleEngineStop(db, config, row.workspace_id);
    else if ((await settleManagedProcess(db, config, row)).status === 'Running') {
      const managed = managedOf(row);
      if (managed) await removeEndedInputs(managed, (jobId, attempt) => attemptRuns(db, jobId, attempt));
    }
  }
}

/** Start checks under way in this process, by engine server id: a GET meanwhile waits for the same check. */
const starting = new Map<string, Promise<{ row: Row; problem: string | null }>>();

/** Readiness waits of servers of Runyard's under way in this process, by engine server id. */
const following = new Map<string, Promise<void>>();

/** Waits (in the background) for a server of Runyard's to answer: Running then, else Stopped with why. */
function follow(db: Kysely<Database>, config: Config, id: string, managed: ManagedCromwell): void {
  if (following.has(id)) return;
  const wait = (async () => {
    const problem = await waitUntilReady(config, managed);
    const row = await db.selectFrom('engine_servers').selectAll().where('id', '=', id).executeTakeFirst();
    // A stop meanwhile has stopped it already.
    if (row?.status !== 'Starting' || managedOf(row)?.attempt !== managed.attempt) return;
    if (problem) await stop(db, config, row, ['Starting'], problem);
    else await move(db, row, ['Starting'], { status: 'Running', status_message: null, url: serverUrlOf(managed) });
  })()
    .catch(() => undefined) // The next reader of a row left Starting follows it again.
    .finally(() => following.delete(id));
  following.set(id, wait);
}

/**
 * Starting a server of Runyard's: its process, when one is recorded and alive, is kept (a restart
 * of a running server does not end the workflows it runs); otherwise a new one is launched and
 * recorded before it is waited for, so that a restarted Runyard finds it.
 */
async function startManaged(db: Kysely<Database>, config: Config, row: Row): Promise<{ row: Row; problem: string | null }> {
  const begun = await move(db, row, ['Stopped', 'Starting', 'Running', 'Stopping'], { status: 'Starting', status_message: null });
  let managed = managedOf(begun);
  if (managed && (await cromwellServerState(config, managed)).state === 'ended') managed = null;
  if (!managed) {
    try {
      managed = await launchCromwellServer(config, begun.workspace_id);
    } catch (e) {
      if (!(e instanceof EngineError)) throw e;
      const problem = `The WDL engine cromwell cannot start: ${e.message}`;
      return { row: await move(db, begun, ['Starting'], { status: 'Stopped', status_message: problem }), problem };
    }
    await db
      .updateTable('engine_servers')
      .set({ process_json: JSON.stringify(managed), url: null, updated_at: isoNow() })
      .where('id', '=', begun.id)
      .execute();
  }
  follow(db, config, begun.id, managed);
  return { row: (await rowOf(db, begun.workspace_id))!, problem: null };
}

/** Starting, then Running when the driver can run, else Stopped with the reason. */
function start(db: Kysely<Database>, config: Config, row: Row): Promise<{ row: Row; problem: string | null }> {
  if (isManaged(config, row)) return startManaged(db, config, row);
  let check = starting.get(row.id);
  if (!check) {
    check = (async () => {
      const url = row.driver === 'cromwell' ? row.url || config.cromwellUrl || null : null;
      const begun = await move(db, row, ['Stopped', 'Starting', 'Running', 'Stopping'], { status: 'Starting', status_message: null });
      const problem = await driverProblem(config, begun.driver as WdlDriverName, url);
      // A stop while the check ran wins: only a row still Starting moves on.
      const done = problem
        ? await move(db, begun, ['Starting'], { status: 'Stopped', status_message: problem })
        : await move(db, begun, ['Starting'], { status: 'Running', status_message: null, url });
      return { row: done, problem };
    })().finally(() => starting.delete(row.id));
    starting.set(row.id, check);
  }
  return check;
}

/**
 * The row as a reader should see it: a stop whose jobs have ended is done; a start left under way
 * by a process that is gone (a restart of Runyard) is checked again.
 */
async function settled(db: Kysely<Database>, config: Config, row: Row): Promise<Row> {
  if (row.status === 'Stopping') {
    await settleEngineStop(db, config, row.workspace_id);
    return (await rowOf(db, row.workspace_id))!;
  }
  if (row.status === 'Starting') {
    const managed = managedOf(row);
    if (!managed) return (await start(db, config, row)).row;
    // A start of this process is followed already; one of a process that is gone is followed again.
    follow(db, config, row.id, managed);
    return row;
  }
  return settleManagedProcess(db, config, row);
}

/** `GET /api/v1/cromwell?teamId=W`. */
export async function getEngineServer(db: Kysely<Database>, config: Config, workspaceId: string): Promise<EngineServer> {
  return toWire(await settled(db, config, await engineServerRow(db, config, workspaceId)));
}

/** `PUT /api/v1/cromwell/{restart|stop}?teamId=W`: a failed start is a 409 with the reason (the row is then Stopped with it). */
export async function switchEngineServer(db: Kysely<Database>, config: Config, workspaceId: string, action: string): Promise<EngineServer> {
  if (!(ENGINE_ACTIONS as readonly string[]).includes(action)) {
    throw new AppError(
      'VALIDATION_FAILED',
      `Unknown action ${quoted(action)}: PUT /api/v1/cromwell/restart starts the WDL engine server, PUT /api/v1/cromwell/stop stops it.`,
    );
  }
  const row = await engineServerRow(db, config, workspaceId);
  if ((action as EngineAction) === 'restart') {
    const { row: after, problem } = await start(db, config, row);
    if (problem) throw new AppError('ENGINE_START_FAILED', problem);
    return toWire(after);
  }
  if (row.status === 'Stopped') return toWire(row);
  const active = await activeWdlJobs(db, workspaceId);
  const after =
    active === 0
      ? await stop(db, config, row, ['Starting', 'Running', 'Stopping'], null)
      : await move(db, row, ['Starting', 'Running', 'Stopping'], {
          status: 'Stopping',
          status_message: `Stopping: ${active} WDL job${active === 1 ? ' is' : 's are'} still running and will finish; new WDL jobs are refused.`,
        });
  return toWire(after);
}

/**
 * At a WDL submission: `cromwellCloudResources`, when given, must be this workspace's engine server
 * (400), and the server must be starting or running (409 otherwise). A job accepted while it
 * starts waits in the queue.
 */
export async function checkEngineForSubmission(
  db: Kysely<Database>,
  config: Config,
  workspaceId: string,
  cromwellCloudResources: string | null | undefined,
): Promise<void> {
  const row = await settled(db, config, await engineServerRow(db, config, workspaceId));
  if (cromwellCloudResources && cromwellCloudResources !== row.id) {
    throw new AppError(
      'VALIDATION_FAILED',
      `cromwellCloudResources ${quoted(cromwellCloudResources)} is not this workspace's WDL engine server: ` +
        'send the _id of GET /api/v1/cromwell, or leave it out.',
    );
  }
  if (row.status === 'Stopped' || row.status === 'Stopping') throw new AppError('ENGINE_STOPPED', ENGINE_STOPPED_MESSAGE);
}

/** What the scheduler needs to prepare a WDL job of the workspace: null unless its engine server is Running. */
export async function engineReady(db: Kysely<Database>, workspaceId: string): Promise<EngineServerInfo | null> {
  const row = await db
    .selectFrom('engine_servers')
    .select(['id', 'driver', 'url', 'process_json'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'Running')
    .executeTakeFirst();
  return row ? { id: row.id, driver: row.driver as WdlDriverName, url: row.url, managed: row.process_json !== null } : null;
}

/** `GET /api/runyard/engine-token?teamId=W` (workspace admin or owner). */
export async function showEngineToken(db: Kysely<Database>, config: Config, workspaceId: string): Promise<EngineToken> {
  const row = await engineServerRow(db, config, workspaceId);
  let token: string;
  try {
    token = unseal(config.secretKeyFile, row.token_sealed);
  } catch {
    throw new AppError(
      'BAD_REQUEST',
      "The engine token cannot be shown: it was sealed with another secret key (RUNYARD_SECRET_KEY_FILE). Rotate it with 'runyard admin engine-token rotate'.",
    );
  }
  return { _id: row.id, workspace: workspaceId, token };
}

/** `POST /api/runyard/engine-token/rotate?teamId=W`: a new token; the old one stops working at once. */
export async function rotateEngineToken(db: Kysely<Database>, config: Config, workspaceId: string): Promise<EngineToken> {
  const row = await engineServerRow(db, config, workspaceId);
  const token = newEngineToken();
  await db
    .updateTable('engine_servers')
    .set({ token_hash: tokenHash(token), token_sealed: seal(config.secretKeyFile, token), updated_at: isoNow() })
    .where('id', '=', row.id)
    .execute();
  return { _id: row.id, workspace: workspaceId, token };
}

/** `PUT /api/runyard/admin/engine` (platform administrator): the driver and Cromwell URL, only while stopped. */
export async function setEngineDriver(db: Kysely<Database>, config: Config, body: EngineSetBody): Promise<EngineServer> {
  if (!(await db.selectFrom('workspaces').select('id').where('id', '=', body.workspaceId).executeTakeFirst())) {
    throw new AppError('WORKSPACE_NOT_FOUND', `Workspace ${body.workspaceId} not found.`);
  }
  let url: string | null = null;
  if (body.url !== undefined) {
    if (body.driver !== 'cromwell') throw new AppError('VALIDATION_FAILED', `url is only for the cromwell driver, not ${body.driver}.`);
    url = cromwellUrlOf(body.url);
    if (!url) {
      throw new AppError(
        'VALIDATION_FAILED',
        `url ${quoted(body.url)} is not a Cromwell server URL: give http(s)://host[:port][/path], without credentials, query or fragment.`,
      );
    }
  }
  const row = await settled(db, config, await engineServerRow(db, config, body.workspaceId));
  if (body.driver === 'cromwell' && !url) url = row.url || config.cromwellUrl || null;
  const changed = await db
    .updateTable('engine_servers')
    .set({ driver: body.driver, url, status_message: null, updated_at: isoNow() })
    .where('id', '=', row.id)
    .where('status', '=', 'Stopped')
    .executeTakeFirst();
  const after = (await rowOf(db, body.workspaceId))!;
  if (Number(changed.numUpdatedRows) === 0) {
    throw new AppError(
      'ENGINE_NOT_STOPPED',
      `The WDL engine server of workspace ${body.workspaceId} is ${after.status}: stop it first ("runyard cromwell stop"), then change its driver.`,
    );
  }
  return toWire(after);
}

/** The caller a valid engine token authenticates: the engine of one workspace. */
export interface EngineCaller {
  user: AuthUser;
  workspaceId: string;
}

/** The workspace engine a Bearer token belongs to, or null for a malformed or unknown (rotated) token. */
export async function authenticateEngineToken(db: Kysely<Database>, token: string): Promise<EngineCaller | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const row = await db
    .selectFrom('engine_servers')
    .select(['id', 'workspace_id'])
    .where('token_hash', '=', tokenHash(token))
    .executeTakeFirst();
  if (!row) return null;
  return {
    user: { id: row.id, username: 'engine', name: 'WDL engine', surname: '', email: '', isAdmin: false },
    workspaceId: row.workspace_id,
  };
}
