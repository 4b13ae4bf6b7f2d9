import { Command } from 'commander';
import { loadProfiles, saveProfiles } from '../../config/profile-files.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';

export interface RemoveProfileOptions {
  profile: string;
}

/** Removes a profile; when it was the default, the first remaining profile becomes the default. */
export async function removeProfile(opts: RemoveProfileOptions, ctx: CliContext): Promise<void> {
  const set = loadProfiles(ctx.home);
  const { removed, newDefault } = set.remove(opts.profile);
  if (!removed) throw new CliError(`No profile named "${opts.profile}". See "runyard configure list-profiles".`);
  saveProfiles(ctx.home, set);
  ctx.stderr.write(`Profile "${opts.profile}" removed.${newDefault ? ` "${newDefault}" is now the default profile.` : ''}\n`);
}

export function removeProfileCommand(ctx: CliContext): Command {
  return new Command('remove-profile')
    .description('remove a profile')
    .requiredOption('--profile <name>', 'profile to remove')
    .action((opts: RemoveProfileOptions) => removeProfile(opts, ctx));
}
