import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';

/** Prints the workspace's engine token on stdout (a workspace admin or owner). */
export async function engineTokenShow(opts: ConnectionFlags, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const t = await withClient(conn, (c) => c.showEngineToken(conn.workspaceId));
  ctx.stdout.write(`${t.token}\n`);
  ctx.stderr.write(
    `The engine token of workspace ${t.workspace}: "runyard cromwell status -t TOKEN" or "Authorization: Bearer TOKEN" on /api/v1/cromwell. Keep it secret.\n`,
  );
}

export function engineTokenShowCommand(ctx: CliContext): Command {
  const cmd = new Command('show').description("print the workspace's engine token (needs the admin role in the workspace)");
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: ConnectionFlags) => engineTokenShow(opts, ctx));
}
