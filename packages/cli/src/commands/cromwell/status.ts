import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { addOutputFormatOption, type OutputFormat } from '../../output/format.js';
import { addCromwellTokenOption, emitServer, type CromwellFlags } from './common.js';

export interface CromwellStatusOptions extends CromwellFlags {
  outputFormat: OutputFormat;
}

/** get_cromwell_status: the status of the workspace's WDL engine server. */
export async function cromwellStatus(opts: CromwellStatusOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const server = await withClient(conn, (c) => c.getCromwellStatus(conn.workspaceId), { engineToken: opts.cromwellToken });
  await emitServer(server, opts.outputFormat, ctx);
}

export function cromwellStatusCommand(ctx: CliContext): Command {
  const cmd = new Command('status').description(
    "print the status of the workspace's WDL engine server (Stopped, Starting, Running, Stopping)",
  );
  addOutputFormatOption(cmd, 'table (the status alone)|json|csv');
  addCromwellTokenOption(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: CromwellStatusOptions) => cromwellStatus(opts, ctx));
}
