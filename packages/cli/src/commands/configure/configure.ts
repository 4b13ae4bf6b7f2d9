import { Command, Option } from 'commander';
import { loadProfiles, saveProfiles } from '../../config/profile-files.js';
import { flagOf, normalizeFieldValue, PROFILE_FIELDS, type ProfileValues } from '../../config/profile-fields.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors/cli-error.js';
import { openPrompter } from '../../prompt/prompter.js';
import { askMakeDefault, askValues } from './ask-values.js';
import { checkSignIn, requireFirstValues } from './sign-in.js';

export interface ConfigureOptions extends ProfileValues {
  profile: string;
  makeDefault?: boolean;
  advanced?: boolean;
  /** false with --no-check. */
  check: boolean;
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
  const raw = { ...opts, platformUrl: opts.platformUrl ?? opts.cloudosUrl } as ProfileValues;
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
 * Creates or updates a profile. With setting flags it changes those settings and asks nothing
 * (and checks nothing: a script may prepare a profile for a server that is not up yet); with only
 * --make-default on an existing profile it moves the default; otherwise it asks for the URL, the
 * workspace and the key (everything with --advanced; answers may be piped on stdin, one per line),
 * then signs in with them (unless --no-check) and says as whom, before saving anything.
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
      const answers = await askValues(prompter, set.get(name)?.values ?? {}, { advanced: Boolean(opts.advanced) });
      const merged = { ...set.get(name)?.values, ...answers };
      requireFirstValues(merged);
      if (opts.check) {
        const who = await checkSignIn({ platformUrl: merged.platformUrl!, apikey: merged.apikey!, workspaceId: merged.workspaceId! });
        ctx.stderr.write(`Signed in to ${merged.platformUrl} as ${who}.\n`);
      }
      const profile = set.upsert(name, answers);
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
    .description(
      'create or update a profile of settings in ~/.runyard/: asks for the platform URL, the workspace id and the API key, ' +
        'and signs in with them; options set values without asking',
    )
    .option('--profile <name>', 'profile to create or update', 'default')
    .option('--make-default', 'make this profile the default one')
    .option('--advanced', 'also ask for the default project, platforms, workflow and session')
    .option('--no-check', 'save the answers without signing in with them first');
  for (const field of PROFILE_FIELDS) {
    const short = { apikey: '-k, ', platformUrl: '-c, ' }[field.key as string] ?? '';
    const option = new Option(`${short}${flagOf(field)} <value>`, `set ${field.prompt.toLowerCase()} without asking`);
    cmd.addOption(field.choices ? option.choices(field.choices) : option);
  }
  cmd.addOption(new Option('--cloudos-url <url>', 'alias of --platform-url').hideHelp());
  return cmd.action((opts: ConfigureOptions) => configure(opts, ctx));
}
