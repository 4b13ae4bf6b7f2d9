import { Command } from 'commander';
import type { CliContext } from '../../../context.js';
import { memberCreateCommand } from './create.js';
import { memberListCommand } from './list.js';
import { memberRevokeCommand } from './revoke.js';

export function memberNoun(ctx: CliContext): Command {
  return new Command('member')
    .description('memberships of users in workspaces')
    .addCommand(memberCreateCommand(ctx))
    .addCommand(memberListCommand(ctx))
    .addCommand(memberRevokeCommand(ctx));
}
