import { Command, Option } from 'commander';
import { loadProfiles, saveProfiles } from '../../config/profile-files.js';
import { flagOf, normalizeFieldValue, PROFILE_FIELDS, type ProfileValues } from '../../config/profile-fields.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors/cli-error.js';
import { openPrompter } from '../../prompt/prompter.js';
import { askMakeDefault, askValues } from './ask-values.js';

export interface ConfigureOptions extends ProfileValues {
  profile: string;
  makeDefault?: boolean;
  /** cloudos-cli's name for --platform-url. */
  cloudosUrl?: string;
}

export function checkProfileName(name: string): void {
  if (!name.trim() || /[[\]\r\n]/.test(name))
    throw new UsageError(`"${name}" cannot be a profile name (empty, or holds [ ] or a line break).`);
}

/** The settings given as flags, checked; empty when none was given. */
function valuesFromFlags(opts: ConfigureOptions): ProfileValues {
  const values: ProfileValues = {};
  const raw: ProfileValues = { ...opts, platformUrl: opts.platformUrl ?? opts.cloudosUrl };
  for (const field of PROFILE_FIELDS) {
    const given = raw[field.key];
    if (given === undefined) continue;
    const checked = normalizeFieldValue(field, given);
    if ('problem' in checked) throw new UsageError(`${flagOf(field)}: ${checked.problem}`);
    values[field.key] = checked.value;
  }
  return values;
}

/**
 * Creates or updates a profile. With setting flags it changes those settings and asks nothing;
 * with only --make-default on an existing profile it moves the default; otherwise it asks for
 * each setting (answers may be piped on stdin, one per line).
 */
export async function configure(opts: ConfigureOptions, ctx: CliContext): Promise<void> {
  const name = opts.profile;
  checkProfileName(name);
  const set = loadProfiles(ctx.home);
  const existed = set.get(name) !== undefined;
  const fromFlags = valuesFromFlags(opts);
  let makeDefault = Boolean(opts.makeDefault);
  if (Object.keys(fromFlags).length > 0) {
    set.upsert(name, fromFlags);
  } else if (!(makeDefault && existed)) {
    const prompter = await openPrompter(ctx);
    try {
      prompter.say(`${existed ? 'Updating' : 'Creating'} profile "${name}". Press Enter to keep the value in brackets.`);
      const profile = set.upsert(name, await askValues(prompter, set.get(name)?.values ?? {}));
      if (!makeDefault && !profile.isDefault) makeDefault = await askMakeDefault(prompter);
    } finally {
      prompter.close();
    }
  }
  if (makeDefault) set.setDefault(name);
  saveProfiles(ctx.home, set);
  const isDefault = set.get(name)!.isDefault;
  ctx.stderr.write(`Profile "${name}" ${existed ? 'updated' : 'created'}${isDefault ? ' (default profile)' : ''}.\n`);
}

export function configureCommand(ctx: CliContext): Command {
  const cmd = new Command('configure')
    .description('create or update a profile of settings in ~/.runyard/ (asks for each one unless given as options)')
    .option('--profile <name>', 'profile to create or update', 'default')
    .option('--make-default', 'make this profile the default one');
  for (const field of PROFILE_FIELDS) {
    const short = { apikey: '-k, ', platformUrl: '-c, ' }[field.key as string] ?? '';
    const option = new Option(`${short}${flagOf(field)} <value>`, `set ${field.prompt.toLowerCase()} without asking`);
    cmd.addOption(field.choices ? option.choices(field.choices) : option);
  }
  cmd.addOption(new Option('--cloudos-url <url>', 'alias of --platform-url').hideHelp());
  return cmd.action((opts: ConfigureOptions) => configure(opts, ctx));
}
