import type { EngineServer } from '@runyard/client';
import { Option, type Command } from 'commander';
import type { ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { emitRecords } from '../../output/emit-record.js';
import type { OutputFormat } from '../../output/format.js';

export interface CromwellFlags extends ConnectionFlags {
  cromwellToken?: string;
}

/** -t/--cromwell-token, as cloudos-cli has it: sent as `Authorization: Bearer` instead of the API key. */
export function addCromwellTokenOption(cmd: Command): Command {
  return cmd.addOption(
    new Option(
      '-t, --cromwell-token <token>',
      "the workspace's engine token (runyard admin engine-token show), sent instead of the API key",
    ),
  );
}

const COLUMNS = ['_id', 'status', 'driver', 'url', 'workspace', 'statusMessage', 'createdAt', 'updatedAt'] as const;

/** One line for a person: which server, its driver, its status and why. */
export function describeServer(s: EngineServer): string {
  const where = s.managedProcess ? `, run by Runyard on ${s.managedProcess.host} since ${s.managedProcess.startedAt}` : '';
  const driver = (s.driver === 'cromwell' && s.url ? `cromwell at ${s.url}` : s.driver) + where;
  return `The WDL engine server ${s._id} of workspace ${s.workspace} (${driver}) is ${s.status}${s.statusMessage ? `: ${s.statusMessage}` : '.'}`;
}

/** The status alone on stdout (for scripts) and the line for a person on stderr; json: the server document; csv: one row. */
export async function emitServer(server: EngineServer, format: OutputFormat, ctx: CliContext): Promise<void> {
  const record = Object.fromEntries(COLUMNS.map((c) => [c, server[c] ?? '']));
  await emitRecords(format, ctx, { text: `${server.status}\n`, json: server, columns: [...COLUMNS], records: [record] });
  if (format === 'table') ctx.stderr.write(`${describeServer(server)}\n`);
}
