import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { makePrivateDir } from '../store/private-files.js';
import type { Database } from '../store/schema.js';
import { createApiKey } from './api-keys.js';
import { createUser } from './users.js';
import { createWorkspace } from './workspaces.js';

export interface InitialAdmin {
  workspaceId: string;
  apikey: string;
}

export const INITIAL_ADMIN_FILE = 'initial-admin.json';

/** On a database with no user: an admin, a workspace they own, and an API key. Otherwise null. */
export async function createInitialAdmin(db: Kysely<Database>): Promise<InitialAdmin | null> {
  const anyUser = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (anyUser) return null;
  let admin;
  try {
    admin = await createUser(db, { username: 'admin', email: 'admin@localhost', name: 'Admin', surname: '', isAdmin: true });
  } catch (e) {
    // Another server sharing this database created the first admin at the same moment.
    if (e instanceof AppError && (e.code === 'USERNAME_TAKEN' || e.code === 'EMAIL_TAKEN')) return null;
    throw e;
  }
  const workspace = await createWorkspace(db, 'Default workspace', admin.id);
  const key = await createApiKey(db, admin.id, 'initial admin key');
  return { workspaceId: workspace.id, apikey: key.apikey };
}

/** Writes `<dataDir>/initial-admin.json`, readable by its owner only. */
export function writeInitialAdminFile(dataDir: string, url: string, admin: InitialAdmin): string {
  makePrivateDir(dataDir);
  const file = path.join(dataDir, INITIAL_ADMIN_FILE);
  writeFileSync(file, JSON.stringify({ url, workspaceId: admin.workspaceId, apikey: admin.apikey }, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
