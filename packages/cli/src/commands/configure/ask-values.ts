import { maskSecret } from '../../config/mask.js';
import { FIRST_FIELDS, normalizeFieldValue, PROFILE_FIELDS, type ProfileField, type ProfileValues } from '../../config/profile-fields.js';
import { UsageError } from '../../errors/cli-error.js';
import type { Prompter } from '../../prompt/prompter.js';

function question(field: ProfileField, current: string | undefined): string {
  const shown = current !== undefined ? (field.secret ? maskSecret(current) : current) : field.fallback;
  const menu = field.choices ? ` (${field.choices.map((c, i) => `${i + 1} ${c}`).join(', ')})` : '';
  return `${field.prompt}${menu}${shown ? ` [${shown}]` : ''}: `;
}

async function askOne(prompter: Prompter, field: ProfileField, current: string | undefined, needed: boolean): Promise<string | undefined> {
  for (;;) {
    const answer = await prompter.ask(question(field, current), { secret: field.secret });
    if (answer === '') {
      const kept = current ?? field.fallback;
      // A person is asked again; piped answers end up in the list of missing values instead.
      if (kept !== undefined || !needed || !prompter.interactive) return kept;
      prompter.say(`${field.prompt} is needed.`);
      continue;
    }
    const checked = normalizeFieldValue(field, answer);
    if ('value' in checked) return checked.value;
    // A person can try again; piped answers would shift by one, so they stop here.
    if (!prompter.interactive) throw new UsageError(checked.problem);
    prompter.say(checked.problem);
  }
}

const fieldOf = (key: string) => PROFILE_FIELDS.find((f) => f.key === key)!;

/**
 * Asks for the URL, the workspace and the API key (with `advanced`, then every other setting in
 * cloudos-cli's order); Enter keeps the current value, or takes the one offered in brackets.
 */
export async function askValues(prompter: Prompter, current: ProfileValues, { advanced }: { advanced: boolean }): Promise<ProfileValues> {
  const fields = [...FIRST_FIELDS.map(fieldOf), ...(advanced ? PROFILE_FIELDS.filter((f) => !FIRST_FIELDS.includes(f.key)) : [])];
  const values: ProfileValues = {};
  for (const field of fields) {
    const v = await askOne(prompter, field, current[field.key], FIRST_FIELDS.includes(field.key));
    if (v !== undefined) values[field.key] = v;
  }
  return values;
}

/** "Make this profile the default? (y/n)": only y or yes says yes. */
export async function askMakeDefault(prompter: Prompter): Promise<boolean> {
  const answer = await prompter.ask('Make this profile the default? (y/n) [n]: ');
  return /^y(es)?$/i.test(answer);
}
