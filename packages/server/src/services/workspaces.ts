import { isObjectId, isoNow, newObjectId, type AdminMember, type AdminWorkspace, type Role } from '@runyard/contract';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { preparedQuery } from '../store/prepared-query.js';
import type { Database } from '../store/schema.js';
import { isUniqueViolation } from '../store/unique-violation.js';
import type { AuthUser, Context } from './context.js';

const membershipRole = preparedQuery((db, p: { workspaceId: string; userId: string }) =>
  db.selectFrom('memberships').select('role').where('workspace_id', '=', p.workspaceId).where('user_id', '=', p.userId),
);

/**
 * The tenancy check every workspace route passes: `teamId` must be a workspace the caller belongs
 * to. Any other value, including another tenant's real id, is a 404 that reveals nothing.
 */
export async function workspaceContext(db: Kysely<Database>, user: AuthUser, teamId: string): Promise<Context> {
  // Made when needed: an error's stack costs more than the lookup.
  const notFound = () => new AppError('WORKSPACE_NOT_FOUND', `Workspace ${quoted(teamId)} not found, or you are not a member of it.`);
  if (!isObjectId(teamId)) throw notFound();
  const membership = await membershipRole.executeTakeFirst(db, { workspaceId: teamId, userId: user.id });
  if (!membership) throw notFound();
  return { user, workspaceId: teamId, role: membership.role };
}

export async function createWorkspace(db: Kysely<Database>, name: string, ownerId?: string): Promise<AdminWorkspace> {
  if (ownerId && !(await db.selectFrom('users').select('id').where('id', '=', ownerId).executeTakeFirst())) {
    throw new AppError('USER_NOT_FOUND', `User ${ownerId} not found.`);
  }
  const row = { id: newObjectId(), name, created_at: isoNow() };
  try {
    await db.transaction().execute(async (tx) => {
      await tx.insertInto('workspaces').values(row).execute();
      if (ownerId) {
        await tx
          .insertInto('memberships')
          .values({ workspace_id: row.id, user_id: ownerId, role: 'owner', created_at: row.created_at })
          .execute();
      }
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError('WORKSPACE_NAME_TAKEN', `A workspace named ${quoted(name)} already exists.`);
    throw e;
  }
  return { id: row.id, name, createdAt: row.created_at, memberCount: ownerId ? 1 : 0 };
}

export async function listWorkspaces(db: Kysely<Database>): Promise<AdminWorkspace[]> {
  const rows = await db
    .selectFrom('workspaces')
    .leftJoin('memberships', 'memberships.workspace_id', 'workspaces.id')
    .select(['workspaces.id', 'workspaces.name', 'workspaces.created_at', (eb) => eb.fn.count<number>('memberships.user_id').as('members')])
    .groupBy(['workspaces.id', 'workspaces.name', 'workspaces.created_at'])
    .orderBy('workspaces.created_at')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, memberCount: Number(r.members) }));
}

async function memberOf(db: Kysely<Database>, workspaceId: string, userId: string): Promise<AdminMember | undefined> {
  const row = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['memberships.workspace_id', 'memberships.user_id', 'users.username', 'memberships.role', 'memberships.created_at'])
    .where('memberships.workspace_id', '=', workspaceId)
    .where('memberships.user_id', '=', userId)
    .executeTakeFirst();
  return (
    row && { workspaceId: row.workspace_id, userId: row.user_id, username: row.username, role: row.role as Role, createdAt: row.created_at }
  );
}

async function ownerCount(db: Kysely<Database>, workspaceId: string): Promise<number> {
  const r = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Runs fn in a transaction holding the workspace row's lock (taken by a no-op update), so that
 * membership changes of one workspace run one at a time and the last-owner check cannot race
 * (two owners demoting each other at once). False, without running fn, when there is no such
 * workspace. SQLite runs one transaction at a time anyway.
 */
async function withWorkspaceLocked<T>(
  db: Kysely<Database>,
  workspaceId: string,
  fn: (tx: Kysely<Database>) => Promise<T>,
): Promise<T | false> {
  return db.transaction().execute(async (tx) => {
    const locked = await tx
      .updateTable('workspaces')
      .set((eb) => ({ name: eb.ref('workspaces.name') }))
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    if (Number(locked.numUpdatedRows) === 0) return false;
    return fn(tx);
  });
}

/** Adds a member, or changes the role of an existing one. */
export async function setMembership(
  db: Kysely<Database>,
  workspaceId: string,
  userId: string,
  role: Role = 'member',
): Promise<AdminMember> {
  const noWorkspace = new AppError('WORKSPACE_NOT_FOUND', `Workspace ${workspaceId} not found.`);
  if (!(await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst())) throw noWorkspace;
  if (!(await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst())) {
    throw new AppError('USER_NOT_FOUND', `User ${userId} not found.`);
  }
  const member = await withWorkspaceLocked(db, workspaceId, async (tx) => {
    const existing = await memberOf(tx, workspaceId, userId);
    if (existing) {
      if (existing.role === 'owner' && role !== 'owner' && (await ownerCount(tx, workspaceId)) === 1) {
        throw new AppError('LAST_OWNER', `User ${userId} is the last owner of workspace ${workspaceId}.`);
      }
      await tx.updateTable('memberships').set({ role }).where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
    } else {
      await tx.insertInto('memberships').values({ workspace_id: workspaceId, user_id: userId, role, created_at: isoNow() }).execute();
    }
    return (await memberOf(tx, workspaceId, userId))!;
  });
  if (!member) throw noWorkspace;
  return member;
}

export async function listMemberships(db: Kysely<Database>, workspaceId?: string): Promise<AdminMember[]> {
  let q = db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['memberships.workspace_id', 'memberships.user_id', 'users.username', 'memberships.role', 'memberships.created_at'])
    .orderBy('memberships.created_at');
  if (workspaceId) q = q.where('memberships.workspace_id', '=', workspaceId);
  return (await q.execute()).map((r) => ({
    workspaceId: r.workspace_id,
    userId: r.user_id,
    username: r.username,
    role: r.role as Role,
    createdAt: r.created_at,
  }));
}

export async function removeMembership(db: Kysely<Database>, workspaceId: string, userId: string): Promise<AdminMember> {
  const removed = await withWorkspaceLocked(db, workspaceId, async (tx) => {
    const existing = await memberOf(tx, workspaceId, userId);
    if (!existing) return false;
    if (existing.role === 'owner' && (await ownerCount(tx, workspaceId)) === 1) {
      throw new AppError('LAST_OWNER', `User ${userId} is the last owner of workspace ${workspaceId}.`);
    }
    await tx.deleteFrom('memberships').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
    return existing;
  });
  if (!removed) throw new AppError('MEMBERSHIP_NOT_FOUND', `User ${userId} is not a member of workspace ${workspaceId}.`);
  return removed;
}
