import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { serverStartCommand } from './start.js';

export function serverNoun(ctx: CliContext): Command {
  return new Command('server').description('run the platform').addCommand(serverStartCommand(ctx));
}
