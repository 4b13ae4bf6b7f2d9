import { Command } from 'commander';
import type { CliContext } from '../../../context.js';
import { apiKeyCreateCommand } from './create.js';
import { apiKeyListCommand } from './list.js';
import { apiKeyRevokeCommand } from './revoke.js';

export function apiKeyNoun(ctx: CliContext): Command {
  return new Command('apikey')
    .description('API keys')
    .addCommand(apiKeyCreateCommand(ctx))
    .addCommand(apiKeyListCommand(ctx))
    .addCommand(apiKeyRevokeCommand(ctx));
}
