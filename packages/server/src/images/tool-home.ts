import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface RegistryCredentials {
  username: string;
  password: string;
}

/**
 * A private directory for one pull's skopeo runs: its auth file (the only place credentials are
 * written: never an argument, which any local user reads in /proc, nor the environment), and the
 * HOME, DOCKER_CONFIG and XDG_* of the runs, so that skopeo finds no other login (the server's
 * user's ~/.docker/config.json would otherwise be used for a user's anonymous pull).
 */
export interface ToolHome {
  authFile: string;
  /** The registries.conf skopeo reads (its global --registries-conf: skopeo 1.9 ignores CONTAINERS_REGISTRIES_CONF): the mirror, if any, and nothing of the host's. */
  registriesConf: string;
  env: NodeJS.ProcessEnv;
  /** Strings to keep out of messages: the password and the base64 form the auth file holds. */
  secrets: string[];
}

/**
 * An operator's mirror of a registry (RUNYARD_REGISTRY_MIRRORS): skopeo tries it first, then the
 * registry itself, with the operator's account at the mirror when there is one.
 */
export interface RegistryMirror {
  /** The registry it mirrors (`docker.io`). */
  registry: string;
  /** The mirror's host (`mirror.lab.org:5000`). */
  location: string;
  /** Spoken to over plain HTTP or without checking its certificate (RUNYARD_INSECURE_REGISTRIES names it). */
  insecure: boolean;
  /** The operator's account at the mirror; null: anonymous. */
  credentials: RegistryCredentials | null;
}

/** Runs `use` with a fresh ToolHome under `parent` (mode 0700, auth file 0600), removed afterwards whatever happens. */
export async function withToolHome<T>(
  parent: string,
  registry: string,
  credentials: RegistryCredentials | null,
  use: (home: ToolHome) => Promise<T>,
  mirror: RegistryMirror | null = null,
): Promise<T> {
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const dir = mkdtempSync(path.join(parent, 'pull-'));
  try {
    const authFile = path.join(dir, 'auth.json');
    const auth = credentials ? basicAuth(credentials) : null;
    const mirrorAuth = mirror?.credentials ? basicAuth(mirror.credentials) : null;
    // An empty "auths" for an anonymous pull: skopeo must not fall back to another file.
    const auths = {
      ...(auth ? { [registry]: { auth } } : {}),
      ...(mirror && mirrorAuth ? { [mirror.location]: { auth: mirrorAuth } } : {}),
    };
    writeFileSync(authFile, JSON.stringify({ auths }), { mode: 0o600 });
    // Always a registries.conf of the pull's own: never the host's (/etc/containers), whose mirrors and rewrites the operator set for other uses.
    const registriesConf = path.join(dir, 'registries.conf');
    writeFileSync(registriesConf, registriesConfOf(mirror), { mode: 0o600 });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: dir,
      DOCKER_CONFIG: dir,
      XDG_RUNTIME_DIR: dir,
      XDG_CONFIG_HOME: dir,
      // Large layers are buffered where the cache is, so a full disk is the cache's.
      TMPDIR: dir,
    };
    const secrets = [
      ...(credentials ? [credentials.password, auth!] : []),
      ...(mirror?.credentials ? [mirror.credentials.password, mirrorAuth!] : []),
    ];
    return await use({ authFile, registriesConf, env, secrets });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function basicAuth(credentials: RegistryCredentials): string {
  return Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64');
}

/** containers-registries.conf(5): the mirror of one registry (tried first, then the registry), or nothing. */
function registriesConfOf(mirror: RegistryMirror | null): string {
  if (!mirror) return '';
  const quoted = (text: string) => JSON.stringify(text);
  return [
    '[[registry]]',
    `prefix = ${quoted(mirror.registry)}`,
    `location = ${quoted(mirror.registry)}`,
    '[[registry.mirror]]',
    `location = ${quoted(mirror.location)}`,
    `insecure = ${mirror.insecure}`,
    '',
  ].join('\n');
}
