import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { configureCommand } from './configure.js';
import { listProfilesCommand } from './list-profiles.js';
import { removeProfileCommand } from './remove-profile.js';

export function configureNoun(ctx: CliContext): Command {
  return configureCommand(ctx).addCommand(listProfilesCommand(ctx)).addCommand(removeProfileCommand(ctx));
}
