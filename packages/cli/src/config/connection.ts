import type { CliContext } from '../context.js';
import { UsageError } from '../errors/cli-error.js';
import { asObjectId, objectIdProblem } from '../options/object-id.js';
import { checkPlatformUrl } from './platform-url.js';
import { loadProfiles } from './profile-files.js';

/** The connection options as commander parses them (see connection-options.ts). */
export interface ConnectionFlags {
  apikey?: string;
  platformUrl?: string;
  /** cloudos-cli's name for --platform-url. */
  cloudosUrl?: string;
  workspaceId?: string;
  profile?: string;
  disableSslVerification?: boolean;
  sslCert?: string;
}

export interface Connection {
  apikey: string;
  /** Without trailing slashes. */
  platformUrl: string;
  /** Set when the command asked for a workspace. */
  workspaceId: string;
  /** TLS: true verifies, false does not, a string is a CA certificate file. */
  verify: boolean | string;
}

export const ENV = {
  apikey: 'RUNYARD_APIKEY',
  platformUrl: 'RUNYARD_PLATFORM_URL',
  workspaceId: 'RUNYARD_WORKSPACE_ID',
} as const;

const FLAG = { apikey: '--apikey', platformUrl: '--platform-url', workspaceId: '--workspace-id' } as const;

interface Sourced {
  value: string;
  from: string;
}

function checkedUrl(s: Sourced | undefined): string | undefined {
  if (!s) return undefined;
  const checked = checkPlatformUrl(s.value);
  if ('problem' in checked) throw new UsageError(`${s.from}: ${checked.problem}`);
  return checked.url;
}

function checkedWorkspace(s: Sourced | undefined): string | undefined {
  if (!s) return undefined;
  const id = asObjectId(s.value);
  if (!id)
    throw new UsageError(`${s.from}: "${s.value}" is not a workspace id. ${objectIdProblem('workspace', 'the first start of the server')}`);
  return id;
}

const given = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v.trim() : undefined);

/**
 * Each setting comes from the first place that has it: the flag, then the environment
 * (RUNYARD_*), then the profile (--profile, else the default profile). Missing ones are a usage
 * error that lists them all.
 */
export function resolveConnection(flags: ConnectionFlags, ctx: CliContext, needs: { workspace: boolean }): Connection {
  const profiles = loadProfiles(ctx.home);
  const profile = flags.profile !== undefined ? profiles.get(flags.profile) : profiles.default;
  if (flags.profile !== undefined && !profile) {
    throw new UsageError(`Profile "${flags.profile}" does not exist. Create it with "runyard configure --profile ${flags.profile}".`);
  }
  const fromFlags = { apikey: flags.apikey, platformUrl: flags.platformUrl ?? flags.cloudosUrl, workspaceId: flags.workspaceId };
  // Where each value came from, so that a bad one can be traced to the flag, variable or profile.
  const pick = (key: keyof typeof ENV): Sourced | undefined => {
    const flag = given(fromFlags[key]);
    if (flag) return { value: flag, from: FLAG[key] };
    const env = given(ctx.env[ENV[key]]);
    if (env) return { value: env, from: ENV[key] };
    const saved = given(profile?.values[key]);
    return saved ? { value: saved, from: `profile "${profile!.name}"` } : undefined;
  };
  const apikey = pick('apikey')?.value;
  const platformUrl = checkedUrl(pick('platformUrl'));
  const workspaceId = needs.workspace ? checkedWorkspace(pick('workspaceId')) : '';
  const values = { apikey, platformUrl, workspaceId };
  const missing = (Object.keys(values) as (keyof typeof values)[]).filter((k) => (k !== 'workspaceId' || needs.workspace) && !values[k]);
  if (missing.length) {
    const [s, them] = missing.length > 1 ? ['s', 'them'] : ['', 'it'];
    throw new UsageError(
      `Missing option${s}: ${missing.map((k) => FLAG[k]).join(', ')}. Give ${them} on the command line, ` +
        `set ${missing.map((k) => ENV[k]).join(', ')}, or save ${them} in a profile with "runyard configure".`,
    );
  }
  const verify = flags.disableSslVerification ? false : (flags.sslCert ?? true);
  return { apikey: apikey!, platformUrl: platformUrl!, workspaceId: workspaceId ?? '', verify };
}
