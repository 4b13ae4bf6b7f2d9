import type { CliContext } from '../context.js';
import type { ProfileKey } from './profile-fields.js';
import { loadProfiles } from './profile-files.js';

/**
 * A command option's value from the profile (--profile, else the default profile) when the command
 * line did not give it, as cloudos-cli fills `--project-name`, `--workflow-name`,
 * `--execution-platform` and `--repository-platform` from the profile.
 */
export function fromProfile(ctx: CliContext, profileName: string | undefined, key: ProfileKey): string | undefined {
  const profiles = loadProfiles(ctx.home);
  const profile = profileName !== undefined ? profiles.get(profileName) : profiles.default;
  const v = profile?.values[key]?.trim();
  return v ? v : undefined;
}
