import { readFileSync } from 'node:fs';
import type { RegistryCredentials, RegistryMirror } from './tool-home.js';

/**
 * The operator's registry mirrors (RUNYARD_REGISTRY_MIRRORS: registry -> mirror host) with their
 * accounts, read from a docker-style auth file (RUNYARD_REGISTRY_MIRROR_AUTH_FILE:
 * `{"auths": {"<mirror host>": {"auth": "base64(user:password)"}}}`, as `docker login` writes it).
 * A file that cannot be read, or an entry that is not `user:password`, is an error at start.
 */
export function mirrorSettings(mirrors: Readonly<Record<string, string>>, authFile: string): Omit<RegistryMirror, 'insecure'>[] {
  const auths = authFile ? readAuths(authFile) : {};
  return Object.entries(mirrors).map(([registry, location]) => ({ registry, location, credentials: accountOf(auths, location, authFile) }));
}

function readAuths(file: string): Record<string, { auth?: unknown }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`RUNYARD_REGISTRY_MIRROR_AUTH_FILE ${file} cannot be read as JSON: ${(e as Error).message}`);
  }
  const auths = (parsed as { auths?: unknown })?.auths;
  if (!auths || typeof auths !== 'object') throw new Error(`RUNYARD_REGISTRY_MIRROR_AUTH_FILE ${file} has no "auths" object.`);
  return auths as Record<string, { auth?: unknown }>;
}

function accountOf(auths: Record<string, { auth?: unknown }>, location: string, file: string): RegistryCredentials | null {
  const auth = auths[location]?.auth;
  if (auth === undefined) return null;
  const text = typeof auth === 'string' ? Buffer.from(auth, 'base64').toString('utf8') : '';
  const colon = text.indexOf(':');
  if (colon <= 0) throw new Error(`RUNYARD_REGISTRY_MIRROR_AUTH_FILE ${file}: the "auth" of ${location} is not base64 of user:password.`);
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}
