import { isoNow, newObjectId, type DockerRegistryBody } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { seal } from '../store/secret-box.js';
import type { Database } from '../store/schema.js';
import type { AuthUser } from './context.js';

/** A linked account as users/me shows it: never its password. */
export interface RegistryAccount {
  registry: string;
  username: string;
  createdAt: string;
}

export async function listRegistryAccounts(db: Kysely<Database>, userId: string): Promise<RegistryAccount[]> {
  const rows = await db
    .selectFrom('docker_registries')
    .select(['registry', 'username', 'created_at'])
    .where('user_id', '=', userId)
    .orderBy('registry')
    .execute();
  return rows.map((r) => ({ registry: r.registry, username: r.username, createdAt: r.created_at }));
}

/** `PUT /api/runyard/users/me/docker-registries`: links the caller's account at a registry, or replaces it; the password is sealed. */
export async function putRegistryAccount(
  db: Kysely<Database>,
  config: Config,
  user: AuthUser,
  body: DockerRegistryBody,
): Promise<RegistryAccount> {
  const now = isoNow();
  const registry = body.registry.toLowerCase();
  const sealed = seal(config.secretKeyFile, body.password);
  const existing = await db
    .selectFrom('docker_registries')
    .select(['id', 'created_at'])
    .where('user_id', '=', user.id)
    .where('registry', '=', registry)
    .executeTakeFirst();
  if (existing) {
    await db
      .updateTable('docker_registries')
      .set({ username: body.username, password_sealed: sealed, updated_at: now })
      .where('id', '=', existing.id)
      .execute();
    return { registry, username: body.username, createdAt: existing.created_at };
  }
  await db
    .insertInto('docker_registries')
    .values({
      id: newObjectId(),
      user_id: user.id,
      registry,
      username: body.username,
      password_sealed: sealed,
      created_at: now,
      updated_at: now,
    })
    // Two links at once: the second replaces the first.
    .onConflict((oc) =>
      oc.columns(['user_id', 'registry']).doUpdateSet({ username: body.username, password_sealed: sealed, updated_at: now }),
    )
    .execute();
  return { registry, username: body.username, createdAt: now };
}

/** `DELETE /api/runyard/users/me/docker-registries?registry=R`. */
export async function deleteRegistryAccount(db: Kysely<Database>, user: AuthUser, registryName: string): Promise<{ deleted: string }> {
  const registry = registryName.toLowerCase();
  const r = await db.deleteFrom('docker_registries').where('user_id', '=', user.id).where('registry', '=', registry).executeTakeFirst();
  if (!r.numDeletedRows) throw new AppError('REGISTRY_NOT_FOUND', `You have no docker registry account at ${quoted(registry)}.`);
  return { deleted: registry };
}
