import { Command } from 'commander';
import { loadProfiles } from '../../config/profile-files.js';
import type { CliContext } from '../../context.js';

/** One profile name per line on stdout, the default one marked ` (default)`. */
export async function listProfiles(ctx: CliContext): Promise<void> {
  const set = loadProfiles(ctx.home);
  if (set.all.length === 0) {
    ctx.stderr.write('No profiles found. Create one with "runyard configure".\n');
    return;
  }
  for (const p of set.all) ctx.stdout.write(`${p.name}${p.isDefault ? ' (default)' : ''}\n`);
}

export function listProfilesCommand(ctx: CliContext): Command {
  return new Command('list-profiles').description('list the profiles; the default one is marked (default)').action(() => listProfiles(ctx));
}
