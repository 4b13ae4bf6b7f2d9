import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { cromwellStatusCommand } from './status.js';
import { cromwellRestartCommand, cromwellStartCommand, cromwellStopCommand } from './switch.js';

/** The workspace's WDL engine server (CloudOS's Cromwell server). */
export function cromwellNoun(ctx: CliContext): Command {
  return new Command('cromwell')
    .description("the workspace's WDL engine server: status, start, stop")
    .addCommand(cromwellStatusCommand(ctx))
    .addCommand(cromwellStartCommand(ctx))
    .addCommand(cromwellStopCommand(ctx))
    .addCommand(cromwellRestartCommand(ctx));
}
