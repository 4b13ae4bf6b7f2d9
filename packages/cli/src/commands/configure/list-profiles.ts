import { Command } from 'commander';
import { loadProfiles } from '../../config/profile-files.js';
import type { CliContext } from '../../context.js';
import { emitRecords } from '../../output/emit-record.js';
import { addOutputFormatOption, type OutputFormat } from '../../output/format.js';

/** One profile name per line on stdout, the default one marked ` (default)`; name and default with json or csv. */
export async function listProfiles(opts: { outputFormat: OutputFormat }, ctx: CliContext): Promise<void> {
  const set = loadProfiles(ctx.home);
  if (set.all.length === 0) ctx.stderr.write('No profiles found. Create one with "runyard configure".\n');
  const records = set.all.map((p) => ({ name: p.name, default: p.isDefault }));
  await emitRecords(opts.outputFormat, ctx, {
    text: set.all.map((p) => `${p.name}${p.isDefault ? ' (default)' : ''}\n`).join(''),
    json: records,
    columns: ['name', 'default'],
    records,
  });
}

export function listProfilesCommand(ctx: CliContext): Command {
  const cmd = new Command('list-profiles').description('list the profiles; the default one is marked (default)');
  addOutputFormatOption(cmd);
  return cmd.action((opts: { outputFormat: OutputFormat }) => listProfiles(opts, ctx));
}
