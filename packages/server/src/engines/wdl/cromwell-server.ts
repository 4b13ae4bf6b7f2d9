import { access, constants, lchown, lstat, mkdir, readdir } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config.js';
import type { Executor, ExternalId, TaskSpec } from '../../executors/executor.js';
import { findOnPath } from '../../executors/find-executable.js';
import { createExecutors } from '../../executors/registry.js';
import { listensInOwnNamespace } from '../../executors/sandbox/sandbox.js';
import { BeneathError, listBeneath, openBeneath, ownDirBeneath, removeBeneath } from '../../storage/beneath.js';
import { defaultBucketOf } from '../../storage/storage-deps.js';
import { EngineError } from '../engine.js';

/**
 * A Cromwell server that Runyard runs itself, as a workspace's engine server (cromwellJar): the
 * operator's jar under their Java, `java -jar cromwell.jar server`, through the local executor,
 * so in the task sandbox (uid nobody; of the machine it sees its own directories read-write, the
 * jar and the configuration file read-only, its jobs' staged inputs and the workspace's own
 * storage area read-only), detached so that it outlives a restart of Runyard, and listening on
 * 127.0.0.1 only, on a free port.
 *
 * Its calls are tenant code and run in the same sandbox: whatever it can write, they can replace
 * with a link, a FIFO or a hard link. So its files are in two places:
 *
 * - <dataDir>/engine-servers/<workspace> (managedCromwellDir), Cromwell's: home/ (its working
 *   directory and HOME), cromwell-executions (the Local backend's root: the calls' directories,
 *   which the WDL jobs of the workspace read) and cromwell-workflow-logs, each bound read-write on
 *   its own; the directory that holds them is not in the sandbox, so they cannot be swapped for
 *   links. The server touches them only through storage/beneath.ts (making them).
 * - <dataDir>/run/engine-servers/<workspace> (managedCromwellRunDir), the server's: cromwell.log
 *   (its stdout and stderr, through the descriptor the spawner opened), control/ (the executor's
 *   pid, exit and limit files) and inputs/ (the staged inputs of its jobs, moved there by the
 *   server and shown to the sandbox read-only). Nothing in the sandbox can write there.
 *
 * Earlier versions kept cromwell.log, control/ and inputs/ inside the directory the sandbox writes;
 * a process they started (a record without runDir) is stopped when found, and those leftovers are
 * removed, without following links, when the next server starts.
 */
export interface ManagedCromwell {
  /** The machine it runs on: only there can its process be looked at or stopped. */
  host: string;
  /** The local executor's id of its process. */
  id: ExternalId;
  /** Its run in control/ (each start is the next). */
  attempt: number;
  port: number;
  /** Cromwell's directory (managedCromwellDir). */
  dir: string;
  /**
   * The server's own files of it (managedCromwellRunDir: cromwell.log, control/, inputs/). Missing in
   * a record of an earlier version, whose were inside dir, where its calls could write them.
   */
  runDir?: string;
  startedAt: string;
}

/** Milliseconds between two readiness requests while it starts. */
const READY_POLL_MS = 500;

/** Cromwell's directory: what its sandbox writes is below it (homeOf, executionsDirOf, workflowLogsDirOf), never it. */
export function managedCromwellDir(config: Pick<Config, 'dataDir'>, workspaceId: string): string {
  return path.join(config.dataDir, 'engine-servers', workspaceId);
}

/** The server's files of a workspace's Cromwell (its log, control files, its jobs' inputs): outside everything the sandbox writes. */
export function managedCromwellRunDir(config: Pick<Config, 'dataDir'>, workspaceId: string): string {
  return path.join(config.dataDir, 'run', 'engine-servers', workspaceId);
}

/** Its working directory and HOME (Java writes there), read-write in the sandbox. */
export function homeOf(dir: string): string {
  return path.join(dir, 'home');
}

/** The Local backend's root: where its calls run and write. */
export function executionsDirOf(dir: string): string {
  return path.join(dir, 'cromwell-executions');
}

/** workflow-options.workflow-log-dir: each workflow's temporary log (workflow.<id>.log), and FINAL_WORKFLOW_LOGS below it. */
export function workflowLogsDirOf(dir: string): string {
  return path.join(dir, 'cromwell-workflow-logs');
}

/**
 * The folder of workflowLogsDirOf where the jobs ask Cromwell to copy each workflow's log at its end
 * (the workflow option final_workflow_log_dir), which their tasks read (cromwell.ts). Cromwell makes it.
 */
export const FINAL_WORKFLOW_LOGS = 'final';

/** The directories of dir that the sandbox writes (made by makeCromwellDirs). */
const CROMWELL_DIRS = ['home', 'cromwell-executions', 'cromwell-workflow-logs'];

/** Where its jobs' staged inputs are (read-only in the sandbox). */
export function inputsRootOf(runDir: string): string {
  return path.join(runDir, 'inputs');
}

/** Where the staged inputs of a job on the managed server are moved, so that Cromwell (in its sandbox) can read them. */
export function managedInputsDirOf(runDir: string, jobId: string, attempt: number): string {
  return path.join(inputsRootOf(runDir), `${jobId}-${attempt}`);
}

export function logFileOf(runDir: string): string {
  return path.join(runDir, 'cromwell.log');
}

export function serverUrlOf(server: Pick<ManagedCromwell, 'port'>): string {
  return `http://127.0.0.1:${server.port}`;
}

/** Whether a workspace's cromwell engine server is one Runyard runs: no URL of its own or configured, and a jar. */
export function isManagedCromwell(config: Pick<Config, 'cromwellJar' | 'cromwellUrl'>, driver: string, url: string | null): boolean {
  return driver === 'cromwell' && !url && !config.cromwellUrl && Boolean(config.cromwellJar);
}

export function isManagedCromwellRecord(value: unknown): value is ManagedCromwell {
  const v = value as ManagedCromwell | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.host === 'string' &&
    typeof v.id === 'object' &&
    Number.isInteger(v.attempt) &&
    Number.isInteger(v.port) &&
    typeof v.dir === 'string' &&
    (v.runDir === undefined || typeof v.runDir === 'string')
  );
}

const executors = new WeakMap<Config, Executor>();

/** The local executor of the configuration (its sandbox and cgroups), made once. */
function localExecutor(config: Config): Executor {
  let executor = executors.get(config);
  if (!executor) {
    executor = createExecutors(config).local!;
    executors.set(config, executor);
  }
  return executor;
}

function controlOf(runDir: string, attempt: number) {
  return { dir: path.join(runDir, 'control'), attempt };
}

/** A port nothing listens on now (the kernel's pick); Cromwell's bind failure says so if another takes it first. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function readableFile(file: string, setting: string): Promise<void> {
  try {
    await access(file, constants.R_OK);
  } catch (e) {
    throw new EngineError(`${setting} ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}).`);
  }
}

/** The Java configuration of Debian's JDKs lives in /etc/java-<n>-openjdk, which the sandbox shows only when asked. */
async function javaEtcDirs(): Promise<string[]> {
  try {
    return (await readdir('/etc')).filter((name) => /^java(-|$)/.test(name)).map((name) => `/etc/${name}`);
  } catch {
    return [];
  }
}

function javaOf(config: Config): string {
  const java = config.java || findOnPath('java', config.taskPath);
  if (!java)
    throw new EngineError('java is not on the task PATH (RUNYARD_TASK_PATH): install Java, or set RUNYARD_JAVA to the java program.');
  return java;
}

/**
 * Makes Cromwell's directories in dir, and removes what earlier versions kept there (control/,
 * inputs/). dir held what Cromwell's calls wrote (and under earlier versions they could write dir
 * itself): a link, a file or anything but a directory where one of them should be is removed, never
 * followed, and dir is the server's again.
 */
async function makeCromwellDirs(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (uid !== undefined && gid !== undefined && (st.uid !== uid || st.gid !== gid)) await lchown(dir, uid, gid);
  for (const name of ['control', 'inputs']) await removeBeneath(dir, name);
  for (const name of CROMWELL_DIRS) await ownDirBeneath(dir, name);
}

/**
 * The process of the server: `java -D... -jar <jar> server`, in <dir>/home; its log and control
 * files in runDir (never in its view), its jobs' inputs in runDir/inputs (read-only).
 */
export async function cromwellServerTask(
  config: Config,
  workspaceId: string,
  dir: string,
  runDir: string,
  port: number,
): Promise<TaskSpec> {
  const java = javaOf(config);
  await readableFile(config.cromwellJar, 'The Cromwell jar (RUNYARD_CROMWELL_JAR)');
  if (config.cromwellConfigFile) await readableFile(config.cromwellConfigFile, 'The Cromwell configuration (RUNYARD_CROMWELL_CONFIG)');
  const home = homeOf(dir);
  const executions = executionsDirOf(dir);
  const workflowLogs = workflowLogsDirOf(dir);
  const inputs = inputsRootOf(runDir);
  // On the local store a job's File Explorer inputs are the stored files themselves: the workspace's area,
  // made now if need be (the sandbox binds what exists when it starts, and files come later).
  const workspaceArea =
    config.storageBackend === 'local' ? [path.join(config.dataDir, 'storage', defaultBucketOf(workspaceId), workspaceId)] : [];
  await makeCromwellDirs(dir);
  for (const d of [inputs, ...workspaceArea]) await mkdir(d, { recursive: true, mode: 0o700 });
  return {
    argv: [
      java,
      ...(config.cromwellConfigFile ? [`-Dconfig.file=${config.cromwellConfigFile}`] : []),
      `-Dwebservice.port=${port}`,
      // In a network namespace of its own, the forward from the host's 127.0.0.1 reaches its tap address.
      `-Dwebservice.interface=${listensInOwnNamespace(config) ? '0.0.0.0' : '127.0.0.1'}`,
      `-Dbackend.providers.Local.config.root=${executions}`,
      `-Dworkflow-options.workflow-log-dir=${workflowLogs}`,
      // Cromwell ships with call caching off (reference.conf); a resumed job takes the calls that finished
      // from it. A system property: it wins over the operator's configuration file.
      '-Dcall-caching.enabled=true',
      '-jar',
      config.cromwellJar,
      'server',
    ],
    env: { PATH: config.taskPath, HOME: home, ...(process.env.JAVA_HOME ? { JAVA_HOME: process.env.JAVA_HOME } : {}) },
    cwd: home,
    // Outside the sandbox: the spawner opens it and hands Cromwell the descriptor.
    logFile: logFileOf(runDir),
    preamble: [`Runyard: starting the workspace's Cromwell server on 127.0.0.1:${port}`],
    // Each bound on its own: dir, which holds them, is not in the sandbox, so none can be swapped for a link.
    writable: [executions, workflowLogs],
    readable: [
      config.cromwellJar,
      ...(config.cromwellConfigFile ? [config.cromwellConfigFile] : []),
      ...(await javaEtcDirs()),
      inputs,
      ...workspaceArea,
    ],
    // The tasks' network (its calls are the workspace's code): on the default, its calls fetch what they
    // need (containers are not run here: the sandbox hides the runtime) and reach nothing of the host; the
    // server reaches Cromwell's port through the forward to the host's 127.0.0.1.
    forwardPort: port,
  };
}

/** The next run in control/: one past every run whose files are there (a run's files are never reused). */
async function nextAttempt(control: string): Promise<number> {
  const runs = (await readdir(control).catch(() => [])).map((name) => Number(/^attempt-(\d+)\./.exec(name)?.[1] ?? 0));
  return Math.max(0, ...runs) + 1;
}

/** Starts the server of a workspace and answers at once; waitUntilReady follows it. */
export async function launchCromwellServer(config: Config, workspaceId: string): Promise<ManagedCromwell> {
  const dir = managedCromwellDir(config, workspaceId);
  const runDir = managedCromwellRunDir(config, workspaceId);
  await mkdir(runDir, { recursive: true, mode: 0o700 });
  const attempt = await nextAttempt(controlOf(runDir, 0).dir);
  const port = await freePort();
  const task = await cromwellServerTask(config, workspaceId, dir, runDir, port);
  const id = await localExecutor(config).launch(task, controlOf(runDir, attempt));
  return { host: os.hostname(), id, attempt, port, dir, runDir, startedAt: new Date().toISOString() };
}

/**
 * The last lines of the server's log, for a message (null runDir: a record of an earlier version,
 * whose log is where its calls could write, and is not read). Opened without following a link, and
 * read only when it is a regular file.
 */
export async function logTail(runDir: string | undefined, lines = 6): Promise<string> {
  if (!runDir) return '';
  try {
    const file = await openBeneath(runDir, path.basename(logFileOf(runDir)));
    try {
      const { size } = await file.stat();
      const length = Math.min(size, 8192);
      const { buffer } = await file.read(Buffer.alloc(length), 0, length, size - length);
      return buffer.toString('utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } finally {
      await file.close();
    }
  } catch {
    return '';
  }
}

/** What is said of a process that an earlier version started, which is stopped when found. */
export const EARLIER_LAYOUT_WHY =
  "it was started by an earlier version of Runyard, which kept the server's own files where its calls could write them, and was stopped";

/**
 * What is known of the server's process: running, ended (why, in words), or elsewhere (another
 * machine's process, which only that machine can look at).
 */
export async function cromwellServerState(
  config: Config,
  server: ManagedCromwell,
): Promise<{ state: 'running' } | { state: 'elsewhere' } | { state: 'ended'; why: string }> {
  if (server.host !== os.hostname()) return { state: 'elsewhere' };
  if (!server.runDir) {
    // Its control files and log are in dir, where its calls could write: never read; it is stopped instead.
    await localExecutor(config).kill(server.id, { force: false, graceMs: config.abortGraceMs });
    return { state: 'ended', why: EARLIER_LAYOUT_WHY };
  }
  const seen = await localExecutor(config).inspect(controlOf(server.runDir, server.attempt), server.id);
  if (seen.state === 'running') return { state: 'running' };
  const why =
    seen.state === 'exited'
      ? `it exited with code ${seen.exitCode}${seen.outOfMemory ? ' (out of memory)' : ''}`
      : seen.state === 'lost'
        ? `it is gone (${seen.reason})`
        : 'it never started';
  const tail = await logTail(server.runDir);
  return { state: 'ended', why: tail ? `${why}; its log ends with:\n${tail}` : why };
}

/** Whether the server answers its status route with 200. */
async function answersStatus(server: ManagedCromwell): Promise<boolean> {
  try {
    const res = await fetch(`${serverUrlOf(server)}/engine/v1/status`, { signal: AbortSignal.timeout(5000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Resolves when the server answers (null), or with why it will not: its process ended, or it did
 * not answer within cromwellStartTimeoutMs (it is then stopped). Another machine's server is
 * waited for by its answer alone.
 */
export async function waitUntilReady(config: Config, server: ManagedCromwell): Promise<string | null> {
  const deadline = Date.parse(server.startedAt) + config.cromwellStartTimeoutMs;
  for (;;) {
    // A process of an earlier version is not taken for ready: cromwellServerState stops it.
    const earlier = !server.runDir && server.host === os.hostname();
    if (!earlier && (await answersStatus(server))) return null;
    const seen = await cromwellServerState(config, server);
    if (seen.state === 'ended') return `The Cromwell server did not start: ${seen.why}`;
    if (Date.now() > deadline) {
      await stopCromwellServer(config, server);
      const tail = await logTail(server.runDir);
      return (
        `The Cromwell server did not answer within ${Math.round(config.cromwellStartTimeoutMs / 1000)} s (RUNYARD_CROMWELL_START_TIMEOUT_MS) and was stopped.` +
        (tail ? ` Its log ends with:\n${tail}` : '')
      );
    }
    await sleep(READY_POLL_MS);
  }
}

/**
 * Stops the server's process (TERM, then KILL after the abort grace) and removes its jobs' inputs;
 * resolves when none of it is left.
 */
export async function stopCromwellServer(config: Config, server: ManagedCromwell): Promise<void> {
  if (server.host !== os.hostname()) return;
  await localExecutor(config).kill(server.id, { force: false, graceMs: config.abortGraceMs });
  // An earlier version's are in dir, among what its calls wrote: removed when the next one starts (makeCromwellDirs).
  if (server.runDir) await removeBeneath(server.runDir, path.basename(inputsRootOf(server.runDir)));
}

/** Removes the inputs moved in for jobs (managedInputsDirOf) whose attempt no longer runs. */
export async function removeEndedInputs(
  server: ManagedCromwell,
  runs: (jobId: string, attempt: number) => Promise<boolean>,
): Promise<void> {
  if (server.host !== os.hostname() || !server.runDir) return;
  const inputs = path.basename(inputsRootOf(server.runDir));
  const entries = await listBeneath(server.runDir, inputs).catch((e: unknown) => {
    if (e instanceof BeneathError) return [];
    throw e;
  });
  for (const { name } of entries) {
    const m = /^([0-9a-f]{24})-(\d+)$/.exec(name);
    if (m && !(await runs(m[1]!, Number(m[2])))) await removeBeneath(server.runDir, `${inputs}/${name}`);
  }
}
