import { isoNow, newObjectId, type AdminUser, type AdminUserCreateBody, type UserMe, type UserSearchReply } from '@runyard/contract';
import { sql, type Kysely, type Selectable } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { containsText } from '../store/like.js';
import type { Database, UserTable } from '../store/schema.js';
import { isUniqueViolation } from '../store/unique-violation.js';
import type { AuthUser, Context } from './context.js';
import { listRegistryAccounts } from './docker-registries.js';

function toAdminUser(row: Selectable<UserTable>): AdminUser {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    name: row.name,
    surname: row.surname,
    isAdmin: row.is_admin === 1,
    active: row.active === 1,
    createdAt: row.created_at,
  };
}

export async function getMe(db: Kysely<Database>, user: AuthUser): Promise<UserMe> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
  const workspaces = await db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select(['workspaces.id', 'workspaces.name', 'memberships.role'])
    .where('memberships.user_id', '=', user.id)
    .orderBy('workspaces.created_at')
    .execute();
  return {
    id: row.id,
    _id: row.id,
    username: row.username,
    name: row.name,
    surname: row.surname,
    email: row.email,
    isAdmin: row.is_admin === 1,
    dockerRegistriesCredentials: await listRegistryAccounts(db, user.id),
    workspaces,
    createdAt: row.created_at,
  };
}

/** Members of the caller's workspace whose username, name, surname or email contains `q`. */
export async function searchUsers(db: Kysely<Database>, ctx: Context, q = ''): Promise<UserSearchReply> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.username', 'users.name', 'users.surname', 'users.email'])
    .where('memberships.workspace_id', '=', ctx.workspaceId)
    .where((eb) =>
      eb.or([
        ...(['users.username', 'users.name', 'users.surname', 'users.email'] as const).map((col) => containsText(sql.ref(col), q)),
        // The display name, "name surname".
        containsText(sql`users.name || ' ' || users.surname`, q),
      ]),
    )
    .orderBy('users.username')
    .limit(100)
    .execute();
  return { items: rows.map((r) => ({ ...r, _id: r.id })) };
}

export async function createUser(db: Kysely<Database>, body: AdminUserCreateBody): Promise<AdminUser> {
  const row = {
    id: newObjectId(),
    username: body.username,
    email: body.email,
    name: body.name ?? '',
    surname: body.surname ?? '',
    is_admin: body.isAdmin ? 1 : 0,
    active: 1,
    created_at: isoNow(),
  };
  const taken = await db
    .selectFrom('users')
    .select(['username', 'email'])
    .where((eb) => eb.or([eb('username', '=', body.username), eb('email', '=', body.email)]))
    .executeTakeFirst();
  if (taken?.username === body.username) throw new AppError('USERNAME_TAKEN', `A user named ${quoted(body.username)} already exists.`);
  if (taken) throw new AppError('EMAIL_TAKEN', `A user with email ${quoted(body.email)} already exists.`);
  try {
    await db.insertInto('users').values(row).execute();
  } catch (e) {
    if (isUniqueViolation(e))
      throw new AppError('USERNAME_TAKEN', `A user named ${quoted(body.username)} or with email ${quoted(body.email)} already exists.`);
    throw e;
  }
  return toAdminUser(row);
}

export async function listUsers(db: Kysely<Database>): Promise<AdminUser[]> {
  return (await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute()).map(toAdminUser);
}

/** Deactivates a user; the last active administrator cannot be, or nobody could administer the server. */
export async function deactivateUser(db: Kysely<Database>, id: string): Promise<AdminUser> {
  const target = await db.selectFrom('users').select(['is_admin', 'active']).where('id', '=', id).executeTakeFirst();
  if (target?.is_admin && target.active) {
    const admins = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('is_admin', '=', 1)
      .where('active', '=', 1)
      .executeTakeFirstOrThrow();
    if (Number(admins.n) <= 1)
      throw new AppError('LAST_ADMIN', `User ${id} is the last active administrator; make another user an administrator first.`);
  }
  await db.updateTable('users').set({ active: 0 }).where('id', '=', id).execute();
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('USER_NOT_FOUND', `User ${id} not found.`);
  return toAdminUser(row);
}
