import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';

/** Replaces the workspace's engine token and prints the new one; the old one stops working at once. */
export async function engineTokenRotate(opts: ConnectionFlags, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const t = await withClient(conn, (c) => c.rotateEngineToken(conn.workspaceId));
  ctx.stdout.write(`${t.token}\n`);
  ctx.stderr.write(`A new engine token for workspace ${t.workspace}; the old one no longer works.\n`);
}

export function engineTokenRotateCommand(ctx: CliContext): Command {
  const cmd = new Command('rotate').description(
    "replace the workspace's engine token and print the new one; the old one stops working (needs the admin role in the workspace)",
  );
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: ConnectionFlags) => engineTokenRotate(opts, ctx));
}
