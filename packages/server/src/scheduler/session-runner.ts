import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionStatus } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { commandTask } from '../engines/session/command.js';
import {
  jupyterStatus,
  jupyterTask,
  logTail,
  sessionUiBasePath,
  waitForJupyter,
  type JupyterTask,
  type SessionDirs,
} from '../engines/session/jupyter.js';
import type { Executor, ExternalId } from '../executors/executor.js';
import { removeBeneath } from '../storage/beneath.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { Database } from '../store/schema.js';
import type { ImageCache } from '../images/image-cache.js';
import { serverImageCache } from './image-use.js';
import { seal, unseal } from '../store/secret-box.js';
import { imageEnv } from './image-pull.js';
import { pullSessionImage, sessionImageNotes } from './session-image.js';
import { SILENT_LOG, type SchedulerLog } from './context.js';
import { restoreHome, saveHome } from './session-home.js';
import { sessionOptionNotes } from './session-options.js';
import { preparePrivateParent, sessionRuntimeDir } from './session-socket-dir.js';
import { cappedNote } from '../instance-types/job-resources.js';
import { applyPendingMounts, prepareSessionMounts, sessionReadable, unmountSession } from './session-mounts.js';
import { preparedQuery } from '../store/prepared-query.js';
import { autoShutdownDue, costLimitReached, endRunSet, moveSession, RUNNING_SESSION_STATUSES, type SessionRow } from './session-state.js';

/** Every pass reads them (a pass follows each job's end and each submission too). */
const unfinishedSessions = preparedQuery((db) =>
  db.selectFrom('interactive_sessions').selectAll().where('status', 'in', ['scheduled', 'initializing', 'setup', 'ready', 'aborting']),
);

/** How long a runner's hold on a session lasts without renewal: another runner adopts the session after it. */
const LEASE_MS = 60_000;
/** How long a session's web UI may take to answer once its process started. */
const READY_TIMEOUT_MS = 180_000;

/**
 * The directories of a session on the server's machine: `<dataDir>/sessions/<id>/` (home, mounts,
 * log, the executor's control files) and its runtime files (its socket, its kernels' sockets and
 * connection files) in a directory short enough for unix sockets (session-socket-dir.ts).
 */
export function sessionDirsOf(
  config: Pick<Config, 'dataDir'>,
  sessionId: string,
): SessionDirs & { root: string; control: string; mountStaging: string } {
  const root = path.join(config.dataDir, 'sessions', sessionId);
  return {
    root,
    home: path.join(root, 'home'),
    runtime: sessionRuntimeDir(config.dataDir, sessionId),
    mounts: path.join(root, 'mounts'),
    logFile: path.join(root, 'session.log'),
    control: path.join(root, 'control'),
    // Where mounts are made before they are renamed into mounts/: out of the session's reach.
    mountStaging: path.join(root, 'mount-staging'),
  };
}

/**
 * Removes a directory of a session (its home, its runtime files) from its parent's handle, the
 * server's: the session wrote in it, so nothing in it is followed (a link is removed, not what it names).
 */
function removeDir(dir: string): Promise<void> {
  return removeBeneath(path.dirname(dir), path.basename(dir));
}

export interface SessionRunnerOptions {
  db: Kysely<Database>;
  config: Config;
  blobs: BlobStore;
  /** The local executor: sessions run on this server's machine. */
  executor: Executor;
  /** Where the images of sessions that name one are pulled to; default: the server's image cache (RUNYARD_IMAGE_CACHE_DIR). */
  images?: ImageCache;
  pollMs?: number;
}

/**
 * Runs interactive sessions (architecture §6): takes the scheduled ones (status moves in
 * session-state.ts, each a conditional update), restores the home, launches the session's server
 * through the local executor (so in the task sandbox, with its instance type's CPUs and memory),
 * and reports it ready once its web UI answers on its socket; stops the ones being paused
 * (saving the home first when asked), the ones the reaper stops (cost limit, auto-shutdown date,
 * both saving first), and finds the ones whose process ended. Each session it holds is under a
 * lease it renews; a session whose lease ran out (its runner died) is adopted.
 */
export class SessionRunner {
  readonly id = `sessions-${randomUUID()}`;
  private readonly pollMs: number;
  /** Sessions this runner is starting or stopping now, by id. */
  private readonly busy = new Map<string, Promise<void>>();
  /** Ready sessions whose pending mounts this runner is applying now, by id (session-mounts.ts). */
  private readonly mounting = new Map<string, { done: Promise<void>; stop: AbortController }>();
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private log: SchedulerLog = SILENT_LOG;
  private readonly abort = new AbortController();
  private readonly images: ImageCache;

  constructor(private readonly o: SessionRunnerOptions) {
    this.pollMs = o.pollMs ?? 1000;
    this.images = o.images ?? serverImageCache(o.config, o.db);
  }

  start(log: SchedulerLog = SILENT_LOG): void {
    this.log = log;
    this.wake();
  }

  /** Runs a pass now (or right after the one under way). */
  wake(): void {
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.pass = this.runPasses().finally(() => {
      this.pass = undefined;
      if (!this.stopped) this.timer = setTimeout(() => this.wake(), this.pollMs);
    });
  }

  /** Stops taking work; sessions keep running (a later runner adopts them once their lease runs out). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.pass;
    await Promise.allSettled([...this.busy.values(), ...[...this.mounting.values()].map((m) => m.done)]);
  }

  private async runPasses(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.runOnce();
      } catch (e) {
        this.log.error({ err: (e as Error).message }, 'session pass failed');
      }
    } while (this.again && !this.stopped);
  }

  private async runOnce(): Promise<void> {
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    const rows = await unfinishedSessions.execute(this.o.db, {});
    const toMount = new Set(
      rows.length
        ? (await this.o.db.selectFrom('session_mounts').select('session_id').distinct().where('status', '=', 'mounting').execute()).map(
            (r) => r.session_id,
          )
        : [],
    );
    for (const row of rows) {
      if (this.stopped) return;
      if (this.busy.has(row.id)) continue;
      const mine = row.lease_owner === this.id;
      const orphan = row.status !== 'scheduled' && !mine && (!row.lease_expires_at || row.lease_expires_at < nowIso);
      if (row.status === 'scheduled') this.track(row.id, () => this.startRun(row));
      else if (row.status === 'aborting' && (mine || orphan)) this.track(row.id, () => this.stopRun(row));
      else if (mine || orphan) {
        await this.watch(row, now, orphan);
        if (row.status === 'ready' && toMount.has(row.id)) this.mount(row);
      }
    }
  }

  /** Applies the pending mounts of a ready session, beside its watch (a copy can take a while). */
  private mount(row: SessionRow): void {
    if (this.mounting.has(row.id)) return;
    const dirs = sessionDirsOf(this.o.config, row.id);
    const stop = new AbortController();
    const done = applyPendingMounts({
      db: this.o.db,
      config: this.o.config,
      blobs: this.o.blobs,
      session: row,
      mountsDir: dirs.mounts,
      stagingDir: dirs.mountStaging,
      signal: AbortSignal.any([stop.signal, this.abort.signal]),
    })
      .catch((e: unknown) => this.log.error({ session: row.id, err: (e as Error).message }, 'session mounts failed'))
      .finally(() => this.mounting.delete(row.id));
    this.mounting.set(row.id, { done, stop });
  }

  /** The end of a run: mounts being applied stopped, what is under mounts/ removed, the mounts unmounted until the next run. */
  private async unmount(id: string): Promise<void> {
    const work = this.mounting.get(id);
    work?.stop.abort();
    await work?.done;
    const dirs = sessionDirsOf(this.o.config, id);
    await unmountSession(this.o.db, id, dirs.mounts, dirs.mountStaging).catch((e: unknown) =>
      this.log.error({ session: id, err: (e as Error).message }, 'session unmount failed'),
    );
  }

  private track(id: string, work: () => Promise<void>): void {
    const done = work()
      .catch((e: unknown) => this.log.error({ session: id, err: (e as Error).message }, 'session work failed'))
      .finally(() => this.busy.delete(id));
    this.busy.set(id, done);
  }

  private leaseSet() {
    return { lease_owner: this.id, lease_expires_at: new Date(Date.now() + LEASE_MS).toISOString() };
  }

  /** A running session this runner holds (or adopts): its lease renewed, the reaper's limits, its process. */
  private async watch(row: SessionRow, now: number, orphan: boolean): Promise<void> {
    const ref = { id: row.id, attempt: row.attempt };
    const id = externalIdOf(row);
    if (id && (row.status === 'setup' || row.status === 'ready')) {
      const seen = await this.o.executor.inspect(this.controlOf(row), id);
      if (seen.state !== 'running') {
        const why =
          seen.state === 'exited' ? `it exited with code ${seen.exitCode}` : seen.state === 'lost' ? seen.reason : 'it never started';
        const tail = await logTail(sessionDirsOf(this.o.config, row.id).logFile);
        await this.fail(row, `The session's server stopped: ${why}.${tail}`, null);
        return;
      }
    } else if (orphan) {
      // Taken by a runner that died before its server ran: started again from its saved home.
      await this.fail(row, 'The session was interrupted while it started (its runner stopped); resume it to start it again.', id);
      return;
    }
    const taken = await this.o.db
      .updateTable('interactive_sessions')
      .set(this.leaseSet())
      .where('id', '=', row.id)
      .where('attempt', '=', row.attempt)
      .where('status', '=', row.status)
      .$if(!orphan, (q) => q.where('lease_owner', '=', this.id))
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 0) return;
    // Left in setup by a runner that stopped while it waited: ready once its UI answers.
    if (row.status === 'setup' && (await this.answers(row)))
      await moveSession(this.o.db, ref, ['setup'], 'ready', { status_message: null });
    const reason = costLimitReached(row, now) ? 'costLimit' : autoShutdownDue(row, now) ? 'autoShutdown' : null;
    if (!reason) return;
    const message =
      reason === 'costLimit'
        ? `Stopped by the platform: the session reached its cost limit of $${Number(row.cost_limit).toFixed(2)}; its home was saved.`
        : `Stopped by the platform at its auto-shutdown date (${row.auto_shutdown_at}); its home was saved.`;
    if (
      await moveSession(this.o.db, ref, ['initializing', 'setup', 'ready'], 'aborting', {
        stop_reason: reason,
        status_message: message,
        upload_on_close: 1,
        abort_force: 0,
      })
    ) {
      this.again = true;
    }
  }

  /** Whether the session's UI answers on its socket (Jupyter: 200 to its status with its token; a command: anything). */
  private async answers(row: SessionRow): Promise<boolean> {
    if (!row.ui_address || !row.ui_token_sealed) return false;
    const token = unseal(this.o.config.secretKeyFile, row.ui_token_sealed);
    const status = await jupyterStatus(row.ui_address, token, sessionUiBasePath(row.id), 5000);
    return row.backend === 'regular' ? status === 200 : typeof status === 'number';
  }

  private controlOf(row: Pick<SessionRow, 'id' | 'attempt'>) {
    return { dir: sessionDirsOf(this.o.config, row.id).control, attempt: row.attempt };
  }

  /** scheduled -> initializing (home restored) -> setup (process launched) -> ready (its UI answers). */
  private async startRun(row: SessionRow): Promise<void> {
    const ref = { id: row.id, attempt: row.attempt, owner: this.id };
    const now = new Date().toISOString();
    if (
      !(await moveSession(this.o.db, { id: row.id, attempt: row.attempt }, ['scheduled'], 'initializing', {
        ...this.leaseSet(),
        run_started_at: now,
        status_message: null,
        stop_reason: null,
      }))
    )
      return;
    const dirs = sessionDirsOf(this.o.config, row.id);
    let launched: ExternalId | null = null;
    try {
      await preparePrivateParent(dirs.runtime);
      await removeDir(dirs.runtime);
      await restoreHome(this.o.blobs, dirs.home, row.home_bucket, row.home_prefix, row.last_saved_at !== null);
      // Applied once it is ready (the items of its creation and resumes, and those linked since).
      await prepareSessionMounts(this.o.db, row);
      const made = await this.taskOf(row, dirs);
      launched = await this.o.executor.launch(made.task, this.controlOf(row));
      const sealed = seal(this.o.config.secretKeyFile, made.token);
      if (
        !(await moveSession(this.o.db, ref, ['initializing'], 'setup', {
          external_id: JSON.stringify(launched),
          ui_address: made.socketPath,
          ui_token_sealed: sealed,
        }))
      ) {
        // Paused meanwhile: the pause's stop finds the process by its id, which is not stored; stop it here.
        await this.o.executor.kill(launched, { force: true, graceMs: 0 });
        return;
      }
      await this.ready(row, made, launched);
      await moveSession(this.o.db, ref, ['setup'], 'ready', { status_message: null });
    } catch (e) {
      if (this.stopped) return;
      await this.fail(row, `The session could not start: ${(e as Error).message}`, launched);
    }
  }

  /** The session's server for its backend: Jupyter (the server's, or its image's once pulled), or the operator's command. */
  private async taskOf(row: SessionRow, dirs: SessionDirs): Promise<JupyterTask> {
    const image = row.image
      ? await pullSessionImage({ db: this.o.db, config: this.o.config, images: this.images }, row, dirs.logFile)
      : null;
    const input = {
      sessionId: row.id,
      dirs,
      config: this.o.config,
      resources: { cpus: Number(row.cpus), memoryGiB: Number(row.memory_gib) },
      // On the local store, the workspace's area (read-only), which its mounts link into.
      readable: await sessionReadable(this.o.config, row.workspace_id),
    };
    const made =
      row.backend === 'regular'
        ? jupyterTask({ ...input, ...(image && { image }) })
        : commandTask({ ...input, command: this.commandOf(row) });
    // In its image: the image's variables under the session's own, and its PATH, set by bwrap in the sandbox only (image-pull.ts
    // imageEnv). Never one of the session's own variables: --setenv puts them in an argv, and the session's token is one.
    if (made.task.image?.run && image) made.task.image.run.env = imageEnv(image.config, made.task.env);
    // Its instance type larger than the local executor: it runs capped (sessionSizing), and its log says so.
    const capped = cappedNote(this.o.config, {
      workflow_type: 'session',
      instance_type: row.instance_type,
      resource_cpu: Number(row.cpus),
      resource_ram: Number(row.memory_gib),
      backend: 'local',
    });
    made.task.preamble = [
      ...(capped ? [`Runyard: ${capped}`] : []),
      ...sessionOptionNotes(row),
      ...(image ? sessionImageNotes(this.o.config, image) : []),
      ...(made.task.preamble ?? []),
    ];
    return made;
  }

  /** The operator's command of a session's backend (RUNYARD_SESSION_COMMAND_<BACKEND>), split on white space. */
  private commandOf(row: SessionRow): string[] {
    const setting = { vscode: 'sessionCommandVscode', rstudio: 'sessionCommandRstudio', spark: 'sessionCommandSpark' }[row.backend] as
      'sessionCommandVscode' | 'sessionCommandRstudio' | 'sessionCommandSpark' | undefined;
    const command = setting ? this.o.config[setting].split(/\s+/).filter(Boolean) : [];
    if (!command.length) throw new Error(`this server runs no ${row.backend} sessions (its command setting is empty).`);
    return command;
  }

  /** Resolves once the session's UI answers on its socket; rejects when its process ends first or it takes too long. */
  private async ready(row: SessionRow, made: JupyterTask, id: ExternalId): Promise<void> {
    const ended = new AbortController();
    const stopWatch = new AbortController();
    const watchProcess = (async () => {
      const end = await this.o.executor
        .wait(this.controlOf(row), id, AbortSignal.any([stopWatch.signal, this.abort.signal]))
        .catch(() => null);
      if (end)
        ended.abort(
          new Error(
            `its server exited (${end.state === 'exited' ? `code ${end.exitCode}` : end.reason}).${await logTail(made.task.logFile)}`,
          ),
        );
    })();
    try {
      const signal = AbortSignal.any([ended.signal, this.abort.signal]);
      if (row.backend === 'regular') {
        await waitForJupyter({
          socketPath: made.socketPath,
          token: made.token,
          basePath: made.basePath,
          logFile: made.task.logFile,
          timeoutMs: READY_TIMEOUT_MS,
          signal,
        });
      } else {
        const deadline = Date.now() + READY_TIMEOUT_MS;
        while (typeof (await jupyterStatus(made.socketPath, made.token, made.basePath, 5000)) !== 'number') {
          signal.throwIfAborted();
          if (Date.now() > deadline)
            throw new Error(`its web UI did not answer within ${READY_TIMEOUT_MS / 1000} s.${await logTail(made.task.logFile)}`);
          await sleep(250, undefined, { signal });
        }
      }
    } catch (e) {
      throw ended.signal.aborted ? (ended.signal.reason as Error) : e;
    } finally {
      stopWatch.abort();
      await watchProcess;
    }
  }

  /** aborting -> aborted: the process stopped (at once when forced), the home saved when asked, the run's cost counted. */
  private async stopRun(row: SessionRow): Promise<void> {
    // The row is a pass's snapshot: another pass of this runner may have stopped the run since (and the
    // session been resumed). Claimed first, so that a stale stop neither saves an empty home over the
    // saved one nor removes the next run's home.
    if (!(await this.claimStop(row))) return;
    const dirs = sessionDirsOf(this.o.config, row.id);
    const id = externalIdOf(row);
    const force = row.abort_force === 1;
    if (id) await this.o.executor.kill(id, { force, graceMs: this.o.config.abortGraceMs });
    const set: Record<string, unknown> = {};
    let keepHome = false;
    if (row.upload_on_close === 1 && !force) {
      try {
        const { skipped } = await saveHome(this.o.blobs, dirs.home, row.home_bucket, row.home_prefix);
        set.last_saved_at = new Date().toISOString();
        if (skipped.length)
          set.status_message = `${row.status_message ?? 'Paused.'} Files whose names the store refuses were not saved: ${skipped.slice(0, 5).join(', ')}.`;
      } catch (e) {
        // Left on the server's machine, where an operator can still reach it; the next run starts from the last save.
        keepHome = true;
        set.status_message = `${row.status_message ?? 'Paused.'} Its home could not be saved: ${(e as Error).message}`;
      }
    }
    await removeDir(dirs.runtime);
    await this.unmount(row.id);
    if (!keepHome) await removeDir(dirs.home);
    await moveSession(this.o.db, { id: row.id, attempt: row.attempt }, ['aborting'], 'aborted', { ...endRunSet(row, Date.now()), ...set });
  }

  /** Takes the stop of a run as the pass saw it: still aborting, the same attempt, its lease as it was (one of two runners adopting it wins). */
  private async claimStop(row: SessionRow): Promise<boolean> {
    const taken = await this.o.db
      .updateTable('interactive_sessions')
      .set(this.leaseSet())
      .where('id', '=', row.id)
      .where('attempt', '=', row.attempt)
      .where('status', '=', 'aborting')
      .where('lease_owner', row.lease_owner === null ? 'is' : '=', row.lease_owner)
      .where('lease_expires_at', row.lease_expires_at === null ? 'is' : '=', row.lease_expires_at)
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) > 0;
  }

  /** A run that could not start, or whose server ended: stopped, aborted with why (stop reason error), resumable. */
  private async fail(row: SessionRow, message: string, id: ExternalId | null): Promise<void> {
    if (id) await this.o.executor.kill(id, { force: true, graceMs: 0 }).catch(() => undefined);
    const fresh = await this.o.db.selectFrom('interactive_sessions').selectAll().where('id', '=', row.id).executeTakeFirst();
    if (!fresh || fresh.attempt !== row.attempt || !RUNNING_SESSION_STATUSES.includes(fresh.status as SessionStatus)) return;
    this.log.warn({ session: row.id, message }, 'session stopped');
    await this.unmount(row.id);
    await moveSession(this.o.db, { id: row.id, attempt: row.attempt }, RUNNING_SESSION_STATUSES, 'aborted', {
      ...endRunSet(fresh, Date.now()),
      stop_reason: 'error',
      status_message: message,
    });
  }
}

function externalIdOf(row: Pick<SessionRow, 'external_id'>): ExternalId | null {
  if (!row.external_id) return null;
  try {
    return JSON.parse(row.external_id) as ExternalId;
  } catch {
    return null;
  }
}
