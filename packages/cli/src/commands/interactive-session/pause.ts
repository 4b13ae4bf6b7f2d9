import { duration } from '../../output/duration.js';
import { Command, Option } from 'commander';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { openPrompter } from '../../prompt/prompter.js';
import {
  addSessionIdArgument,
  withSessionClient,
  dollars,
  durationSeconds,
  sessionIdOf,
  shownStatus,
  STOPPED,
  watchSession,
  type SessionIdFlags,
} from './common.js';

export interface SessionPauseOptions extends ConnectionFlags, SessionIdFlags {
  /** Commander's --no-upload: false when given. */
  upload: boolean;
  force?: boolean;
  wait?: boolean;
  waitTime: number;
  yes?: boolean;
}

/** Seconds between two status checks while --wait waits (cloudos-cli polls every 5). */
const WAIT_INTERVAL = 2;

async function confirmPause(ctx: CliContext, id: string, upload: boolean, force: boolean): Promise<boolean> {
  if (!ctx.stdin.isTTY) {
    throw new UsageError(
      `Refusing to pause without a confirmation: stdin is not a terminal. Add -y (--yes) to "runyard interactive-session pause ${id}" to confirm.`,
    );
  }
  ctx.stderr.write(`About to pause session: ${id}\nUpload data before pausing: ${upload}\nForce immediate termination: ${force}\n`);
  const prompter = await openPrompter(ctx);
  try {
    return (await prompter.ask('Continue? [y/N] ')).trim().toLowerCase() === 'y';
  } finally {
    prompter.close();
  }
}

/**
 * abort_interactive_session, as cloudos-cli's pause: reads the session first (one already paused,
 * being paused or terminated is an error), asks for a confirmation unless -y or --force, then
 * pauses it: its home is saved to the workspace's storage unless --no-upload; --force stops it at
 * once without saving. With --wait, waits until it is paused and prints its cost and runtime.
 */
export async function sessionPause(arg: string | undefined, opts: SessionPauseOptions, ctx: CliContext): Promise<void> {
  const id = sessionIdOf(arg, opts);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const force = Boolean(opts.force);
  // Sent as cloudos-cli sends them; the server saves nothing on a forced abort, whatever uploadOnClose says.
  const upload = opts.upload;
  await withSessionClient(conn, id, async (client) => {
    const session = await client.getInteractiveSession(id, conn.workspaceId);
    const tip = `Check its status with "runyard interactive-session status ${id}".`;
    if (session.status === 'aborted') throw new CliError(`Cannot pause session ${id}: it is already paused. ${tip}`);
    if (session.status === 'aborting') throw new CliError(`Cannot pause session ${id}: it is already being paused. ${tip}`);
    if (session.status === 'terminated') throw new CliError(`Session ${id} is terminated and cannot be paused.`);
    if (!opts.yes && !force && !(await confirmPause(ctx, id, upload, force))) {
      ctx.stderr.write('Cancelled.\n');
      return;
    }
    await client.abortInteractiveSession(id, conn.workspaceId, upload, force);
    if (force) ctx.stderr.write('⚠ Warning: Session was force-aborted by the user. Some data may have not been saved.\n');
    if (!opts.wait) {
      ctx.stdout.write(`${id}\n`);
      ctx.stderr.write(
        `✓ Session pause request sent successfully${upload && !force ? ' (its home is saved first)' : ''}. ` +
          `"runyard interactive-session status ${id} --watch" waits until it is paused.\n`,
      );
      return;
    }
    const { session: final, timedOut } = await watchSession(
      client,
      conn,
      id,
      STOPPED,
      { watchInterval: WAIT_INTERVAL, maxWaitTime: opts.waitTime },
      ctx,
    );
    if (timedOut) {
      throw new CliError(
        `Session ${id} did not finish pausing within ${duration(opts.waitTime)}; it is ${shownStatus(final.status)}. ` +
          `The pause was sent: "runyard interactive-session status ${id} --watch" follows it.`,
      );
    }
    ctx.stdout.write(`${id}\n`);
    ctx.stderr.write(
      `✓ Session paused successfully\n  Session ID: ${id}\n  Final status: ${shownStatus(final.status)}\n` +
        `  Total cost: ${dollars(final.totalCostInUsd)}\n  Total runtime: ${duration(final.totalRunningTimeInSeconds)}\n` +
        `${final.lastSavedAt ? `  Home saved at: ${final.lastSavedAt}\n` : ''}`,
    );
  });
}

export function sessionPauseCommand(ctx: CliContext): Command {
  const cmd = new Command('pause').description("pause a running interactive session (its home is saved to the workspace's storage first)");
  addSessionIdArgument(cmd);
  cmd
    .option('--no-upload', "do not save the session's home before pausing (its changes since the last save are lost)")
    .option('--force', 'stop it at once, saving nothing, and do not ask for a confirmation')
    .option('--wait', 'wait until the session is paused')
    .addOption(
      new Option('--wait-time <duration>', 'with --wait, give up after this long (30s, 5m, 2h; exit 1)')
        .argParser((v) => durationSeconds(v, 'smhd', 'a duration'))
        .default(300, '5m'),
    )
    .option('-y, --yes', 'do not ask for a confirmation');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((arg: string | undefined, opts: SessionPauseOptions) => sessionPause(arg, opts, ctx));
}
