import { Command, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { numberIn } from '../../options/number.js';
import { addCromwellTokenOption, describeServer, emitServer, type CromwellFlags } from './common.js';

/** Seconds between two status requests while a start is awaited. */
export const START_POLL_SECONDS = 1;

export interface CromwellStartOptions extends CromwellFlags {
  waitTime: number;
}

/**
 * cromwell_switch restart, then the status every second until the server runs (or --wait-time
 * seconds pass: exit 1). Prints the status, as `cromwell status` does.
 */
export async function cromwellStart(opts: CromwellStartOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const server = await withClient(
    conn,
    async (c) => {
      let now = await c.cromwellSwitch(conn.workspaceId, 'restart');
      if (now.status !== 'Running') {
        ctx.stderr.write(`${describeServer(now)} Waiting up to ${opts.waitTime} s for it to run.\n`);
        now = await c.waitForCromwell(conn.workspaceId, { waitTime: opts.waitTime, interval: START_POLL_SECONDS });
      }
      return now;
    },
    { engineToken: opts.cromwellToken },
  );
  if (server.status !== 'Running') {
    throw new CliError(`${describeServer(server)} It did not start within ${opts.waitTime} s.`);
  }
  await emitServer(server, 'table', ctx);
}

/** cromwell_switch stop: Stopped, or Stopping while WDL jobs of the workspace still run (they finish; new ones are refused). */
export async function cromwellStop(opts: CromwellFlags, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const server = await withClient(conn, (c) => c.cromwellSwitch(conn.workspaceId, 'stop'), { engineToken: opts.cromwellToken });
  await emitServer(server, 'table', ctx);
}

function startCommand(ctx: CliContext, name: 'start' | 'restart', description: string): Command {
  const cmd = new Command(name)
    .description(description)
    .addOption(
      new Option('--wait-time <seconds>', 'give up waiting for it to run after this many seconds (exit 1)')
        .argParser(numberIn(0, 86_400, 'a number of seconds'))
        .default(300),
    );
  addCromwellTokenOption(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: CromwellStartOptions) => cromwellStart(opts, ctx));
}

export function cromwellStartCommand(ctx: CliContext): Command {
  return startCommand(ctx, 'start', "start the workspace's WDL engine server and wait until it runs");
}

export function cromwellRestartCommand(ctx: CliContext): Command {
  return startCommand(ctx, 'restart', 'start the WDL engine server again (checks its engine anew), and wait until it runs');
}

export function cromwellStopCommand(ctx: CliContext): Command {
  const cmd = new Command('stop').description(
    "stop the workspace's WDL engine server: running WDL jobs finish, new ones are refused until it is started",
  );
  addCromwellTokenOption(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: CromwellFlags) => cromwellStop(opts, ctx));
}
