import { Command } from 'commander';
import type { CliContext } from '../../../context.js';
import { userCreateCommand } from './create.js';
import { userListCommand } from './list.js';
import { userRevokeCommand } from './revoke.js';

export function userNoun(ctx: CliContext): Command {
  return new Command('user')
    .description('users')
    .addCommand(userCreateCommand(ctx))
    .addCommand(userListCommand(ctx))
    .addCommand(userRevokeCommand(ctx));
}
