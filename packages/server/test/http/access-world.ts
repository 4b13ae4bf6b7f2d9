import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROLE_ORDER, type Role } from '@runyard/contract';
import type { Kysely } from 'kysely';
import { loadConfig, type Config } from '../../src/config.js';
import { createApiKey } from '../../src/services/api-keys.js';
import { createUser } from '../../src/services/users.js';
import { createWorkspace, setMembership } from '../../src/services/workspaces.js';
import { openStore, type Store } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import type { Database } from '../../src/store/schema.js';
import { freshDatabaseUrl } from '../../../../test/support/database.js';

/** Someone with an API key. */
export interface Person {
  userId: string;
  apikey: string;
  keyId: string;
}

/**
 * The people of the access tests, on a fresh database (SQLite, or PostgreSQL with
 * RUNYARD_TEST_DATABASE_URL), made with the services from src/: a workspace with a member of each
 * role, a platform administrator who is no member of it, and the owner of another workspace.
 */
export interface AccessWorld {
  store: Store;
  db: Kysely<Database>;
  config: Config;
  workspaceId: string;
  /** Another tenant's workspace, which only `outsider` belongs to. */
  otherWorkspaceId: string;
  /** A member of the workspace for each role. */
  roles: Record<Role, Person>;
  /** users.isAdmin, and a member of no workspace. */
  platformAdmin: Person;
  /** The owner of the other workspace, and no member of this one. */
  outsider: Person;
  /** A new user (in `role` of the workspace, unless null) with a key. */
  person(name: string, role: Role | null, isAdmin?: boolean): Promise<Person>;
  close(): Promise<void>;
}

export async function accessWorld(env: NodeJS.ProcessEnv = {}): Promise<AccessWorld> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-access-'));
  const config = loadConfig({
    RUNYARD_DATA_DIR: dataDir,
    RUNYARD_PORT: '0',
    RUNYARD_DATABASE_URL: await freshDatabaseUrl(),
    RUNYARD_LOG_LEVEL: 'warn',
    PATH: process.env.PATH,
    ...env,
  });
  const store = openStore(config.databaseUrl);
  await migrateToLatest(store.db);
  const db = store.db;
  const keyed = async (name: string, isAdmin = false): Promise<Person> => {
    const user = await createUser(db, { username: name, email: `${name}@example.org`, name, surname: 'Tester', isAdmin });
    const key = await createApiKey(db, user.id, `${name} key`);
    return { userId: user.id, apikey: key.apikey, keyId: key.id };
  };
  const owner = await keyed('owner');
  const workspaceId = (await createWorkspace(db, 'the workspace', owner.userId)).id;
  const outsider = await keyed('outsider');
  const otherWorkspaceId = (await createWorkspace(db, 'another workspace', outsider.userId)).id;
  const person = async (name: string, role: Role | null, isAdmin = false) => {
    const p = await keyed(name, isAdmin);
    if (role) await setMembership(db, workspaceId, p.userId, role);
    return p;
  };
  const roles = { owner } as Record<Role, Person>;
  for (const role of ROLE_ORDER) if (role !== 'owner') roles[role] = await person(role, role);
  return {
    store,
    db,
    config,
    workspaceId,
    otherWorkspaceId,
    roles,
    platformAdmin: await person('root', null, true),
    outsider,
    person,
    close: () => store.close(),
  };
}
