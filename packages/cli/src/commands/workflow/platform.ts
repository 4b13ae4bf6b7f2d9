import { Option } from 'commander';

/** The repository platforms of the wire reference (cloudos-cli's --repository-platform choices). */
export const PLATFORMS = ['github', 'gitlab', 'bitbucketServer'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** --repository-platform, with the default given (import) or none (a filter). */
export function repositoryPlatformOption(description: string, defaultValue?: Platform): Option {
  const o = new Option('--repository-platform <platform>', description).choices(PLATFORMS);
  return defaultValue ? o.default(defaultValue) : o;
}
