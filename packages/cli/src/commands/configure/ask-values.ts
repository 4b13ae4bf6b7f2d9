import { maskSecret } from '../../config/mask.js';
import { normalizeFieldValue, PROFILE_FIELDS, type ProfileField, type ProfileValues } from '../../config/profile-fields.js';
import { UsageError } from '../../errors/cli-error.js';
import type { Prompter } from '../../prompt/prompter.js';

function question(field: ProfileField, current: string | undefined): string {
  const shown = current !== undefined ? (field.secret ? maskSecret(current) : current) : field.fallback;
  const menu = field.choices ? ` (${field.choices.map((c, i) => `${i + 1} ${c}`).join(', ')})` : '';
  return `${field.prompt}${menu}${shown ? ` [${shown}]` : ''}: `;
}

async function askOne(prompter: Prompter, field: ProfileField, current: string | undefined): Promise<string | undefined> {
  for (;;) {
    const answer = await prompter.ask(question(field, current), { secret: field.secret });
    if (answer === '') return current ?? field.fallback;
    const checked = normalizeFieldValue(field, answer);
    if ('value' in checked) return checked.value;
    // A person can try again; piped answers would shift by one, so they stop here.
    if (!prompter.interactive) throw new UsageError(checked.problem);
    prompter.say(checked.problem);
  }
}

/** Asks for every setting in cloudos-cli's order; Enter keeps the current value. */
export async function askValues(prompter: Prompter, current: ProfileValues): Promise<ProfileValues> {
  const values: ProfileValues = {};
  for (const field of PROFILE_FIELDS) {
    const v = await askOne(prompter, field, current[field.key]);
    if (v !== undefined) values[field.key] = v;
  }
  return values;
}

/** "Make this profile the default? (y/n)": only y or yes says yes. */
export async function askMakeDefault(prompter: Prompter): Promise<boolean> {
  const answer = await prompter.ask('Make this profile the default? (y/n) [n]: ');
  return /^y(es)?$/i.test(answer);
}
