import type { EngineDriver } from '@runyard/client';
import { Command, Option } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { describeServer } from '../../cromwell/common.js';

export interface SetEngineOptions extends ConnectionFlags {
  driver: EngineDriver;
  cromwellUrl?: string;
}

/** Sets the WDL driver of the workspace's engine server (which must be stopped) and prints it. */
export async function workspaceSetEngine(opts: SetEngineOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const server = await withClient(conn, (c) => c.admin.setWorkspaceEngine(conn.workspaceId, opts.driver, opts.cromwellUrl));
  ctx.stdout.write(`${server.driver}\n`);
  ctx.stderr.write(`${describeServer(server)} Start it with "runyard cromwell start".\n`);
}

export function workspaceSetEngineCommand(ctx: CliContext): Command {
  const cmd = new Command('set-engine')
    .description("choose the WDL driver of a workspace's engine server, which must be stopped")
    .addOption(new Option('--driver <driver>', 'toil, cromwell or miniwdl').choices(['toil', 'cromwell', 'miniwdl']).makeOptionMandatory())
    .option(
      '--cromwell-url <url>',
      'with --driver cromwell: base URL of the Cromwell server (default: RUNYARD_CROMWELL_URL of the server)',
    );
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: SetEngineOptions) => workspaceSetEngine(opts, ctx));
}
