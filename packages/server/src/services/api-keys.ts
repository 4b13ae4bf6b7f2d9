import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isoNow, newObjectId, type AdminApiKey, type AdminApiKeyCreated } from '@runyard/contract';
import type { Kysely, Selectable } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { preparedQuery } from '../store/prepared-query.js';
import type { ApiKeyTable, Database } from '../store/schema.js';
import type { AuthUser } from './context.js';

// A key reads `ry_<keyId>_<secret>`: the id finds the row, the secret is compared by hash in
// constant time, and only the SHA-256 of the secret is stored.
const KEY_PATTERN = /^ry_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/;
// Writing last-used on every request would make every read a write; once a minute is enough.
export const LAST_USED_RESOLUTION_MS = 60_000;

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

function toWire(row: Selectable<ApiKeyTable>): AdminApiKey {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export async function createApiKey(db: Kysely<Database>, userId: string, name = ''): Promise<AdminApiKeyCreated> {
  const user = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
  if (!user) throw new AppError('USER_NOT_FOUND', `User ${userId} not found.`);
  const id = newObjectId();
  const secret = randomBytes(32).toString('base64url');
  const apikey = `ry_${id}_${secret}`;
  const row = {
    id,
    user_id: userId,
    name,
    // The key id part is not secret and tells keys apart; no character of the secret is shown.
    prefix: `ry_${id}`,
    secret_hash: hashSecret(secret).toString('hex'),
    created_at: isoNow(),
    last_used_at: null,
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { ...toWire(row), apikey };
}

export async function listApiKeys(db: Kysely<Database>, userId?: string): Promise<AdminApiKey[]> {
  let q = db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id');
  if (userId) q = q.where('user_id', '=', userId);
  return (await q.execute()).map(toWire);
}

export async function revokeApiKey(db: Kysely<Database>, id: string): Promise<AdminApiKey> {
  await db.updateTable('api_keys').set({ revoked_at: isoNow() }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('API_KEY_NOT_FOUND', `API key ${id} not found.`);
  return toWire(row);
}

const keyWithUser = preparedQuery((db, p: { id: string }) =>
  db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      'api_keys.secret_hash',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'users.id as user_id',
      'users.username',
      'users.name',
      'users.surname',
      'users.email',
      'users.is_admin',
      'users.active',
    ])
    .where('api_keys.id', '=', p.id),
);

/** The active user owning this key, or null for a malformed, unknown or revoked key. */
export async function authenticate(db: Kysely<Database>, apikey: string): Promise<AuthUser | null> {
  const match = KEY_PATTERN.exec(apikey);
  if (!match) return null;
  const [, id, secret] = match;
  const row = await keyWithUser.executeTakeFirst(db, { id });
  if (!row || row.revoked_at || !row.active) return null;
  if (!timingSafeEqual(hashSecret(secret), Buffer.from(row.secret_hash, 'hex'))) return null;
  const now = Date.now();
  if (!row.last_used_at || now - Date.parse(row.last_used_at) > LAST_USED_RESOLUTION_MS) {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: new Date(now).toISOString() })
      .where('id', '=', id)
      .execute();
  }
  return {
    id: row.user_id,
    username: row.username,
    name: row.name,
    surname: row.surname,
    email: row.email,
    isAdmin: row.is_admin === 1,
    apiKeyId: id,
  };
}
