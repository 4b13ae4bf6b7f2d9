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
  env: NodeJS.ProcessEnv;
  /** Strings to keep out of messages: the password and the base64 form the auth file holds. */
  secrets: string[];
}

/** Runs `use` with a fresh ToolHome under `parent` (mode 0700, auth file 0600), removed afterwards whatever happens. */
export async function withToolHome<T>(
  parent: string,
  registry: string,
  credentials: RegistryCredentials | null,
  use: (home: ToolHome) => Promise<T>,
): Promise<T> {
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const dir = mkdtempSync(path.join(parent, 'pull-'));
  try {
    const authFile = path.join(dir, 'auth.json');
    const auth = credentials ? Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64') : null;
    // An empty "auths" for an anonymous pull: skopeo must not fall back to another file.
    const auths = auth ? { [registry]: { auth } } : {};
    writeFileSync(authFile, JSON.stringify({ auths }), { mode: 0o600 });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: dir,
      DOCKER_CONFIG: dir,
      XDG_RUNTIME_DIR: dir,
      XDG_CONFIG_HOME: dir,
      // Large layers are buffered where the cache is, so a full disk is the cache's.
      TMPDIR: dir,
    };
    const secrets = credentials ? [credentials.password, auth!] : [];
    return await use({ authFile, env, secrets });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
