import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { instanceTypeListCommand } from './list.js';

export function instanceTypesNoun(ctx: CliContext): Command {
  return new Command('instance-types')
    .description('the instance types of the server: size and hourly price')
    .addCommand(instanceTypeListCommand(ctx));
}
