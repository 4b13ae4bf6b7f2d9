import type { InteractiveSession, RunyardClient } from '@runyard/client';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { withClient } from '../../config/connect.js';
import type { Connection } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { asObjectId, objectIdProblem, sessionId as sessionIdValue } from '../../options/object-id.js';
import { repeatable } from '../../options/repeatable.js';
import { loadSdk } from '../../sdk.js';
import { duration } from '../../output/duration.js';

// What the interactive-session commands share: the session id (an argument, or cloudos-cli's
// --session-id), how statuses and types are shown, durations and dates, and the watch loop.

/** The statuses as the API spells them (wire-api §2.11). */
export type WireStatus = InteractiveSession['status'];

/**
 * How the CLI shows a status, as cloudos-cli's map_status does: `ready` is running, `aborted`
 * paused; the others keep their names (initializing in cloudos-cli's spelling).
 */
const SHOWN: Record<string, string> = { ready: 'running', aborted: 'paused', stopped: 'paused', initializing: 'initialising' };

export function shownStatus(status: string): string {
  return SHOWN[status] ?? status;
}

/** "paused (aborted)": the CLI's name, and the API's when it differs. */
export function statusWithWire(status: string): string {
  const shown = shownStatus(status);
  return shown === status ? status : `${shown} (${status})`;
}

/** A session that is starting: scheduled, initializing, setup. */
export const STARTING: readonly string[] = ['scheduled', 'initializing', 'setup'];
/** A session that is not running and will not run unless resumed. */
export const STOPPED: readonly string[] = ['aborted', 'terminated'];

/** interactiveSessionType -> the name cloudos-cli shows (wire-api §2.11). */
const TYPE_NAMES: Record<string, string> = {
  awsJupyterNotebook: 'Jupyter',
  azureJupyterNotebook: 'Jupyter',
  awsVSCode: 'VS Code',
  azureVSCode: 'VS Code',
  awsRstudio: 'RStudio',
  awsRStudio: 'RStudio',
  azureRstudio: 'RStudio',
  azureRStudio: 'RStudio',
  awsSpark: 'Spark',
  awsJupyterSparkNotebook: 'Spark',
  azureJupyterSparkNotebook: 'Spark',
  azureSpark: 'Spark',
  awsWindowsSession: 'Windows',
};

export function typeName(interactiveSessionType: string | undefined): string {
  return interactiveSessionType ? (TYPE_NAMES[interactiveSessionType] ?? interactiveSessionType) : '';
}

/** The session's page in the web application, as cloudos-cli prints it. */
export function sessionUrl(platformUrl: string, sessionId: string): string {
  return `${platformUrl}/app/data-science/interactive-analysis/view/${sessionId}`;
}

/** The owner as "name surname", else the email. */
export function ownerOf(s: Pick<InteractiveSession, 'user'>): string {
  const u = s.user as Partial<InteractiveSession['user']> | undefined;
  return [u?.name, u?.surname].filter(Boolean).join(' ') || (u?.email ?? '');
}

export const dollars = (n: number | undefined) => `$${(typeof n === 'number' && Number.isFinite(n) ? n : 0).toFixed(2)}`;

// ---- the session id --------------------------------------------------------------------------

export interface SessionIdFlags {
  sessionId?: string;
}

/** `[session-id]` and cloudos-cli's `--session-id <id>`: one of them is needed. */
export function addSessionIdArgument(cmd: Command): Command {
  return cmd
    .argument('[session-id]', 'id of the session (24 hexadecimal characters), or give --session-id')
    .addOption(
      new Option('--session-id <id>', 'id of the session (instead of the argument, as cloudos-cli has it)').argParser(sessionIdValue),
    );
}

/** The session id of the argument or of --session-id (checked: 24 hexadecimal characters), else a usage error. */
export function sessionIdOf(arg: string | undefined, flags: SessionIdFlags): string {
  const fromArg = arg === undefined ? undefined : asObjectId(arg);
  if (arg !== undefined && !fromArg) {
    throw new UsageError(`"${arg}" is not a session id. ${objectIdProblem('session', '"runyard interactive-session list"')}`);
  }
  if (fromArg && flags.sessionId && fromArg !== flags.sessionId) {
    throw new UsageError(`Two different session ids: ${fromArg} (argument) and ${flags.sessionId} (--session-id); give one.`);
  }
  const id = fromArg ?? flags.sessionId;
  if (!id)
    throw new UsageError('Missing the session id: give it as an argument or with --session-id (see "runyard interactive-session list").');
  return id;
}

/**
 * withClient for a command about one session: the server's 404 for it (another workspace's
 * session, another person's private one, or none) becomes a sentence naming the session and workspace.
 */
export async function withSessionClient<T>(conn: Connection, sessionId: string, fn: (client: RunyardClient) => Promise<T>): Promise<T> {
  const { NotFoundError } = await loadSdk();
  try {
    return await withClient(conn, fn);
  } catch (e) {
    if (e instanceof NotFoundError && e.code === 'SESSION_NOT_FOUND') {
      throw new CliError(
        `Session ${sessionId} not found in workspace ${conn.workspaceId}. Check the id with "runyard interactive-session list" (and --workspace-id).`,
      );
    }
    throw e;
  }
}

// ---- durations and dates ---------------------------------------------------------------------

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** "30s", "5m", "2h", "1d" (units as cloudos-cli takes them; `units` says which) -> seconds. */
export function durationSeconds(value: string, units: string, what: string): number {
  const m = new RegExp(`^\\s*(\\d+)\\s*([${units}])\\s*$`, 'i').exec(value);
  const n = m ? Number(m[1]) * UNIT_SECONDS[m[2].toLowerCase()] : NaN;
  if (!m || !Number.isSafeInteger(n) || n <= 0) {
    const forms = [...units].map((u) => `${u === 's' ? 30 : u === 'm' ? 30 : u === 'h' ? 8 : 2}${u}`).join(', ');
    throw new InvalidArgumentError(`expected ${what} such as ${forms}, not "${value}".`);
  }
  return n;
}

/** A date as the public client sends it: UTC, microseconds, Z (2030-01-31T18:00:00.000000Z). */
export function wireDate(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** --shutdown-in: "30m", "8h", "2d" (cloudos-cli's forms) -> a number of seconds from now. */
export function shutdownInParser(value: string): number {
  return durationSeconds(value, 'mhd', 'a duration');
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/** --shutdown-at: an ISO-8601 date and time with a time zone, still to come -> the wire's date. */
export function shutdownAtParser(value: string): string {
  const m = ISO_DATE_TIME.exec(value.trim());
  // Date.parse takes 2030-02-31 (as 3 March) and 24:00: a date the calendar has, and a time of day, only.
  const [y, mo, d, h, mi, s] = m
    ? value
        .trim()
        .split(/[-T:.Z+]/i)
        .slice(0, 6)
        .map(Number)
    : [];
  const real =
    m !== null &&
    new Date(Date.UTC(y, mo - 1, d)).getUTCDate() === d &&
    mo >= 1 &&
    mo <= 12 &&
    h < 24 &&
    mi < 60 &&
    (Number.isNaN(s) || s < 60);
  const ms = real ? Date.parse(value.trim()) : NaN;
  if (Number.isNaN(ms)) {
    throw new InvalidArgumentError(`expected a date and time with a time zone, e.g. 2030-01-31T18:00:00Z, not "${value}".`);
  }
  if (ms <= Date.now()) throw new InvalidArgumentError(`"${value}" is in the past: the session would be stopped at once.`);
  return wireDate(ms);
}

/** The auto-shutdown date from --shutdown-at, else --shutdown-in (seconds from now), else undefined. */
export function shutdownDate(o: { shutdownAt?: string; shutdownIn?: number }): string | undefined {
  if (o.shutdownAt) return o.shutdownAt;
  return o.shutdownIn === undefined ? undefined : wireDate(Date.now() + o.shutdownIn * 1000);
}

/** --shutdown-in and --shutdown-at (one of them). */
export function addShutdownOptions(cmd: Command, shutdownInDefault?: string): Command {
  const inOption = new Option(
    '--shutdown-in <duration>',
    `stop the session (saving its home) after this long: 30m, 8h, 2d${shutdownInDefault ? '' : ' (default: unchanged)'}`,
  )
    .argParser(shutdownInParser)
    .conflicts('shutdownAt');
  if (shutdownInDefault) inOption.default(shutdownInParser(shutdownInDefault), shutdownInDefault);
  return cmd
    .addOption(inOption)
    .addOption(
      new Option('--shutdown-at <date>', 'stop the session at this date and time instead, e.g. 2030-01-31T18:00:00Z').argParser(
        shutdownAtParser,
      ),
    );
}

// ---- instance types, cost limit, storage --------------------------------------------------

/** cloudos-cli's checks of an instance type's spelling (wire-api §4.1). */
const INSTANCE_PATTERNS = {
  aws: /^[a-z]{1,4}\d+[a-z]*\.(\d+)?(nano|micro|small|medium|large|xlarge|metal)$/i,
  azure: /^(Standard|Basic)_[A-Z]\d+[a-z]*(_v\d+)?$/,
} as const;

export const SESSION_PLATFORMS = ['aws', 'azure'] as const;
export type SessionPlatform = (typeof SESSION_PLATFORMS)[number];

/** A usage error unless the instance type is spelled as the platform's are. */
export function checkInstanceType(instance: string, platform: SessionPlatform, flag = '--instance'): void {
  if (INSTANCE_PATTERNS[platform].test(instance)) return;
  const example =
    platform === 'aws' ? '<family><generation>.<size>, e.g. c5.xlarge, m5.2xlarge' : 'Standard_<series><size>, e.g. Standard_F1s';
  throw new UsageError(
    `Invalid ${platform === 'aws' ? 'AWS' : 'Azure'} instance type for ${flag}: "${instance}". Expected ${example} ("runyard instance-types list" lists this server's).`,
  );
}

/** Storage of a session, GB (the reference's bounds). */
export const STORAGE_MIN_GB = 100;
export const STORAGE_MAX_GB = 5000;

export function costLimitParser(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (n < 0 && n !== -1)) {
    throw new InvalidArgumentError('expected US dollars, 0 or more (-1: no limit).');
  }
  return n;
}

// ---- --mount and --link ------------------------------------------------------------------

export interface ItemFlags {
  mount?: string[];
  link?: string[];
}

/** cloudos-cli's --mount (files) and --link (folders), repeatable. */
export function addItemOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--mount <path>',
        'a file to give the session (repeatable): s3://bucket/key or a File Explorer file project/Data/file.txt',
      ).argParser(repeatable),
    )
    .addOption(
      new Option(
        '--link <paths>',
        'folders to link into the session, comma-separated (repeatable): s3://bucket/prefix/, project/Data/folder or mountName:bucket:prefix',
      ).argParser(repeatable),
    );
}

// ---- waiting for a status -----------------------------------------------------------------

/** Polls --watch: seconds between two polls, and the longest wait (cloudos-cli's names and forms). */
export interface WatchFlags {
  watchInterval: number;
  maxWaitTime: number;
}

export function addWatchOptions(cmd: Command, what: string): Command {
  return cmd
    .option('--watch', what)
    .addOption(
      new Option('--watch-interval <seconds>', 'seconds between two status checks with --watch')
        .argParser((v) => {
          const n = Number(v);
          if (v.trim() === '' || !Number.isFinite(n) || n < 0.1 || n > 3600)
            throw new InvalidArgumentError('expected a number of seconds from 0.1 to 3600.');
          return n;
        })
        .default(5),
    )
    .addOption(
      new Option('--max-wait-time <duration>', 'give up waiting after this long (30s, 5m, 2h, 1d; exit 1)')
        .argParser((v) => durationSeconds(v, 'smhd', 'a duration'))
        .default(1800, '30m'),
    );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface WatchResult {
  session: InteractiveSession;
  timedOut: boolean;
}

/**
 * Reads the session until its status is one of `until` (or `maxWaitTime` seconds pass), writing a
 * line to stderr at each change: `Status changed: scheduled → setup`. The first read is `first`
 * when given (no request).
 */
export async function watchSession(
  client: RunyardClient,
  conn: Connection,
  sessionId: string,
  until: readonly string[],
  flags: WatchFlags,
  ctx: CliContext,
  first?: InteractiveSession,
): Promise<WatchResult> {
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  let session = first ?? (await client.getInteractiveSession(sessionId, conn.workspaceId));
  let shown = session.status;
  for (;;) {
    if (session.status !== shown) {
      ctx.stderr.write(`Status changed: ${shownStatus(shown)} → ${shownStatus(session.status)} (${duration(elapsed())})\n`);
      shown = session.status;
    }
    if (until.includes(session.status)) return { session, timedOut: false };
    const left = flags.maxWaitTime - elapsed();
    if (left <= 0) return { session, timedOut: true };
    await sleep(Math.min(flags.watchInterval, left) * 1000);
    session = await client.getInteractiveSession(sessionId, conn.workspaceId);
  }
}

/**
 * Waits until the session runs (ready), or stopped (aborted, terminated) while starting. A session
 * that did not start, or is still starting after the wait, is a CliError saying why.
 */
export async function watchUntilReady(
  client: RunyardClient,
  conn: Connection,
  sessionId: string,
  flags: WatchFlags,
  ctx: CliContext,
  first?: InteractiveSession,
): Promise<InteractiveSession> {
  const initial = first ?? (await client.getInteractiveSession(sessionId, conn.workspaceId));
  if (initial.status !== 'ready') ctx.stderr.write(`Session ${sessionId} currently is ${shownStatus(initial.status)}...\n`);
  const { session, timedOut } = await watchSession(client, conn, sessionId, ['ready', ...STOPPED], flags, ctx, initial);
  if (timedOut) {
    throw new CliError(
      `Session ${sessionId} did not reach running within ${duration(flags.maxWaitTime)}; it is ${shownStatus(session.status)}. ` +
        `Check again with "runyard interactive-session status ${sessionId} --watch".`,
    );
  }
  if (session.status !== 'ready') {
    throw new CliError(
      `Session ${sessionId} is ${statusWithWire(session.status)}${session.statusMessage ? `: ${session.statusMessage}` : '.'}`,
    );
  }
  ctx.stderr.write(`✓ Session ${sessionId} is now running and ready to use: "runyard interactive-session open ${sessionId}" opens it.\n`);
  return session;
}
