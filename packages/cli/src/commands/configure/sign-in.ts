import { withClient } from '../../config/connect.js';
import { flagOf, FIRST_FIELDS, PROFILE_FIELDS, type ProfileValues } from '../../config/profile-fields.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { describeError } from '../../errors/describe-error.js';

const PLACEHOLDER: Partial<Record<keyof ProfileValues, string>> = { platformUrl: 'URL', workspaceId: 'ID', apikey: 'KEY' };

/** The first settings still without a value, as a usage error that names their flags; else nothing. */
export function requireFirstValues(values: ProfileValues): void {
  // In the order of the questions.
  const missing = FIRST_FIELDS.filter((k) => !values[k]).map((k) => PROFILE_FIELDS.find((f) => f.key === k)!);
  if (!missing.length) return;
  const example = missing.map((f) => `${flagOf(f)} ${PLACEHOLDER[f.key] ?? 'VALUE'}`).join(' ');
  throw new UsageError(
    `Missing: ${missing.map(flagOf).join(', ')}. Nothing was saved. Run "runyard configure" on a terminal to be asked, ` +
      `or give ${missing.length > 1 ? 'them' : 'it'} as options: runyard configure ${example}`,
  );
}

/**
 * Signs in with the URL and key (GET /api/v1/users/me) and checks that the workspace is one of the
 * user's; returns "Name Surname (username)". A failure says why and that nothing was saved.
 */
export async function checkSignIn(values: Required<Pick<ProfileValues, 'platformUrl' | 'apikey' | 'workspaceId'>>): Promise<string> {
  let me;
  try {
    me = await withClient({ platformUrl: values.platformUrl, apikey: values.apikey, workspaceId: values.workspaceId, verify: true }, (c) =>
      c.getUserInfo(),
    );
  } catch (e) {
    const report = await describeError(e);
    throw new CliError(`${report.message.replace(/\.?$/, '.')} Nothing was saved.`, report.exitCode);
  }
  const who = `${[me.name, me.surname].filter(Boolean).join(' ') || me.email} (${me.username})`;
  if (!me.workspaces.some((w) => w.id === values.workspaceId)) {
    const yours = me.workspaces.map((w) => `${w.id} (${w.name})`).join(', ') || 'none';
    throw new CliError(`${who} is not a member of workspace ${values.workspaceId}; their workspaces: ${yours}. Nothing was saved.`);
  }
  return who;
}
