import { asObjectId, objectIdProblem } from '../options/object-id.js';
import { checkPlatformUrl, DEFAULT_PLATFORM_URL } from './platform-url.js';

/** The settings a profile can hold (cloudos-cli's order; see FIRST_FIELDS for the order of the questions). */
export interface ProfileValues {
  apikey?: string;
  platformUrl?: string;
  workspaceId?: string;
  projectName?: string;
  executionPlatform?: string;
  repositoryPlatform?: string;
  workflowName?: string;
  sessionId?: string;
}

export type ProfileKey = keyof ProfileValues;

export interface ProfileField {
  key: ProfileKey;
  /** Key in the INI file. */
  ini: string;
  /** Older spellings accepted when reading (cloudos-cli's files use `cloudos_url`). */
  iniAliases?: string[];
  file: 'credentials' | 'config';
  prompt: string;
  /** The allowed values; a number answer picks by position, as cloudos-cli's menus do. */
  choices?: readonly string[];
  /** What Enter gives when the profile has no value yet. */
  fallback?: string;
  secret?: boolean;
}

/** What every command needs, asked first and always; the rest is asked with `configure --advanced`. */
export const FIRST_FIELDS: readonly ProfileKey[] = ['platformUrl', 'workspaceId', 'apikey'];

export const EXECUTION_PLATFORMS = ['aws', 'azure', 'hpc'] as const;
export const REPOSITORY_PLATFORMS = ['github', 'gitlab', 'bitbucketServer'] as const;

export const PROFILE_FIELDS: readonly ProfileField[] = [
  { key: 'apikey', ini: 'apikey', file: 'credentials', prompt: 'API key', secret: true },
  {
    key: 'platformUrl',
    ini: 'platform_url',
    iniAliases: ['cloudos_url'],
    file: 'config',
    prompt: 'Platform URL',
    fallback: DEFAULT_PLATFORM_URL,
  },
  { key: 'workspaceId', ini: 'workspace_id', file: 'config', prompt: 'Workspace id' },
  { key: 'projectName', ini: 'project_name', file: 'config', prompt: 'Project name' },
  {
    key: 'executionPlatform',
    ini: 'execution_platform',
    file: 'config',
    prompt: 'Execution platform',
    choices: EXECUTION_PLATFORMS,
    fallback: 'aws',
  },
  {
    key: 'repositoryPlatform',
    ini: 'repository_platform',
    file: 'config',
    prompt: 'Repository platform',
    choices: REPOSITORY_PLATFORMS,
    fallback: 'github',
  },
  { key: 'workflowName', ini: 'workflow_name', file: 'config', prompt: 'Workflow name' },
  { key: 'sessionId', ini: 'session_id', file: 'config', prompt: 'Interactive session id' },
];

/** The allowed value an answer names (case-insensitive, or by 1-based position), or undefined. */
export function pickChoice(field: ProfileField, answer: string): string | undefined {
  if (!field.choices) return answer;
  const n = Number(answer);
  if (Number.isInteger(n) && n >= 1 && n <= field.choices.length) return field.choices[n - 1];
  return field.choices.find((c) => c.toLowerCase() === answer.toLowerCase());
}

/** The command-line flag of a field: `--platform-url` for `platform_url`. */
export function flagOf(field: ProfileField): string {
  return `--${field.ini.replace(/_/g, '-')}`;
}

/** The value to store for an answer or a flag, or the reason it is not acceptable. */
export function normalizeFieldValue(field: ProfileField, raw: string): { value: string } | { problem: string } {
  const text = raw.trim();
  if (/[\r\n]/.test(text)) return { problem: `${field.prompt} must be on one line.` };
  if (field.choices) {
    const value = pickChoice(field, text);
    return value ? { value } : { problem: `${field.prompt} must be one of ${field.choices.join(', ')} (not "${text}").` };
  }
  if (field.key === 'workspaceId') {
    const id = asObjectId(text);
    return id
      ? { value: id }
      : { problem: `"${text}" is not a workspace id. ${objectIdProblem('workspace', 'the first start of the server')}` };
  }
  if (field.key === 'platformUrl') {
    const checked = checkPlatformUrl(text);
    return 'url' in checked ? { value: checked.url } : checked;
  }
  return { value: text };
}
