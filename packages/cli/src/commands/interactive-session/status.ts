import { duration } from '../../output/duration.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { InteractiveSession } from '@runyard/client';
import { Command } from 'commander';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { addOutputFormatOption, EXTENSION, type OutputFormat } from '../../output/format.js';
import { loadSdk } from '../../sdk.js';
import {
  addSessionIdArgument,
  withSessionClient,
  addWatchOptions,
  dollars,
  ownerOf,
  sessionIdOf,
  sessionUrl,
  shownStatus,
  STARTING,
  statusWithWire,
  STOPPED,
  typeName,
  watchSession,
  watchUntilReady,
  type SessionIdFlags,
  type WatchFlags,
} from './common.js';

export interface SessionStatusOptions extends ConnectionFlags, SessionIdFlags, WatchFlags {
  outputFormat: OutputFormat;
  outputBasename?: string;
  watch?: boolean;
}

/** The rows of the status table (cloudos-cli's "Interactive Session Status"), property and value. */
export function statusRows(s: InteractiveSession, platformUrl: string): Array<[string, string]> {
  const rows: Array<[string, string]> = [
    ['Session ID', s._id],
    ['Name', s.name],
    ['Status', statusWithWire(s.status)],
    ['Backend', typeName(s.interactiveSessionType)],
    ['Owner', ownerOf(s)],
    ['Project', s.project?.name ?? ''],
    ['Instance Type', `${s.resources.instanceType}${s.resources.isCostSaving ? ' (spot)' : ''}`],
    ['Storage', `${s.resources.storageSizeInGb} GB`],
    ['Cost', dollars(s.totalCostInUsd)],
    ['Cost Limit', s.execution.computeCostLimit === -1 ? 'Unlimited' : dollars(s.execution.computeCostLimit)],
    ['Runtime', s.totalRunningTimeInSeconds > 0 ? duration(s.totalRunningTimeInSeconds) : 'Not started'],
    ['Created At', s.createdAt],
  ];
  if (s.lastSavedAt) rows.push(['Last Saved', s.lastSavedAt]);
  if (s.execution.autoShutdownAtDate) rows.push(['Auto-Shutdown At', s.execution.autoShutdownAtDate]);
  if (s.rVersion) rows.push(['R Version', s.rVersion]);
  if (s.statusMessage) rows.push(['Message', s.statusMessage]);
  rows.push(['Link', sessionUrl(platformUrl, s._id)]);
  return rows;
}

/** cloudos-cli's status CSV columns, one row. */
function csvRecord(s: InteractiveSession): Record<string, string> {
  return {
    ID: s._id,
    Name: s.name,
    Status: shownStatus(s.status),
    Backend: typeName(s.interactiveSessionType),
    Instance: `${s.resources.instanceType}${s.resources.isCostSaving ? ' (spot)' : ''}`,
    Storage: `${s.resources.storageSizeInGb} GB`,
    Cost: dollars(s.totalCostInUsd),
    Runtime: s.totalRunningTimeInSeconds > 0 ? duration(s.totalRunningTimeInSeconds) : 'Not started',
    Created: s.createdAt,
  };
}

/** The session in the chosen format: to stdout, or to `<basename>.<ext>` with a note on stderr. */
export async function emitSession(s: InteractiveSession, platformUrl: string, opts: SessionStatusOptions, ctx: CliContext): Promise<void> {
  let text: string;
  if (opts.outputFormat === 'json') text = JSON.stringify(s, null, 2) + '\n';
  else if (opts.outputFormat === 'csv') {
    const record = csvRecord(s);
    text = (await loadSdk()).tableToCsv({ columns: Object.keys(record), rows: [record] });
  } else {
    const rows = statusRows(s, platformUrl);
    const width = Math.max(...rows.map(([k]) => k.length)) + 1;
    text = rows.map(([k, v]) => `${`${k}:`.padEnd(width)}  ${v.replace(/[\t\r\n]+/g, ' ')}`).join('\n') + '\n';
  }
  if (opts.outputBasename === undefined) {
    ctx.stdout.write(text);
    return;
  }
  const file = path.resolve(`${opts.outputBasename}.${EXTENSION[opts.outputFormat]}`);
  writeFileSync(file, text);
  ctx.stderr.write(`Session status saved to ${file}\n`);
}

/**
 * The session's status and configuration (GET /api/v2/interactive-sessions/{id}). With --watch, a
 * session that is starting is read every --watch-interval seconds until it runs (exit 0) or
 * stopped instead (exit 1, saying why); one being paused until it is paused. Changes go to stderr.
 */
export async function sessionStatus(arg: string | undefined, opts: SessionStatusOptions, ctx: CliContext): Promise<void> {
  const id = sessionIdOf(arg, opts);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const session = await withSessionClient(conn, id, async (client) => {
    const now = await client.getInteractiveSession(id, conn.workspaceId);
    if (!opts.watch) return now;
    if (STARTING.includes(now.status)) return watchUntilReady(client, conn, id, opts, ctx, now);
    if (now.status === 'aborting') {
      ctx.stderr.write(`Session ${id} currently is being paused...\n`);
      const { session, timedOut } = await watchSession(client, conn, id, STOPPED, opts, ctx, now);
      if (timedOut) throw new CliError(`Session ${id} was still being paused after the wait; it is ${shownStatus(session.status)}.`);
      return session;
    }
    ctx.stderr.write(`Session ${id} is ${shownStatus(now.status)}; nothing to watch.\n`);
    return now;
  });
  await emitSession(session, conn.platformUrl, opts, ctx);
}

export function sessionStatusCommand(ctx: CliContext): Command {
  const cmd = new Command('status').description('show the status and configuration of an interactive session');
  addSessionIdArgument(cmd);
  addOutputFormatOption(cmd, 'table|json (the session document)|csv');
  cmd.option('--output-basename <name>', 'write <name>.<txt|json|csv> instead of printing');
  addWatchOptions(cmd, 'wait while the session starts (until it runs) or is being paused, printing each change of status');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((arg: string | undefined, opts: SessionStatusOptions) => sessionStatus(arg, opts, ctx));
}
