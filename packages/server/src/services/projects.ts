import { isoNow, MAX_PROJECT_PAGE_SIZE, newObjectId, type Project, type ProjectListQuery, type ProjectListReply } from '@runyard/contract';
import { sql, type Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { containsText } from '../store/like.js';
import type { Database } from '../store/schema.js';
import { isUniqueViolation } from '../store/unique-violation.js';
import type { Context } from './context.js';

function projectQuery(db: Kysely<Database>, ctx: Context) {
  return db
    .selectFrom('projects')
    .innerJoin('users', 'users.id', 'projects.user_id')
    .select([
      'projects.id',
      'projects.name',
      'projects.created_at',
      'projects.updated_at',
      'projects.workflow_count',
      'projects.job_count',
      'projects.notebook_session_count',
      'users.id as user_id',
      'users.name as user_name',
      'users.surname as user_surname',
      'users.email as user_email',
    ])
    .where('projects.workspace_id', '=', ctx.workspaceId);
}

type ProjectRow = Awaited<ReturnType<ReturnType<typeof projectQuery>['executeTakeFirstOrThrow']>>;

function toWire(ctx: Context, r: ProjectRow): Project {
  return {
    _id: r.id,
    name: r.name,
    user: { id: r.user_id, name: r.user_name, surname: r.user_surname, email: r.user_email },
    team: { id: ctx.workspaceId },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    workflowCount: Number(r.workflow_count),
    jobCount: Number(r.job_count),
    notebookSessionCount: Number(r.notebook_session_count),
    projectData: [],
    projectJobs: [],
    directory: {},
  };
}

/**
 * `total` counts every match; without `pageSize` all matches come back (up to the server's
 * largest page), because the public client's name lookup sends `search` alone. An exact name
 * match is always listed first so that lookup finds it among many similar names.
 */
export async function listProjects(db: Kysely<Database>, ctx: Context, query: ProjectListQuery): Promise<ProjectListReply> {
  const pageSize = query.pageSize ?? MAX_PROJECT_PAGE_SIZE;
  const page = query.page ?? 1;
  const search = query.search?.trim() ?? '';
  let list = projectQuery(db, ctx);
  let count = db
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', ctx.workspaceId);
  if (search) {
    list = list.where(containsText(sql.ref('projects.name'), search));
    count = count.where(containsText(sql.ref('projects.name'), search));
    list = list.orderBy(sql`case when projects.name = ${search} then 0 else 1 end`);
  }
  const [{ n }] = await count.execute();
  const rows =
    pageSize === 0
      ? []
      : await list
          .orderBy('projects.created_at', 'desc')
          .orderBy('projects.id', 'desc')
          .limit(pageSize)
          .offset((page - 1) * pageSize)
          .execute();
  return { total: Number(n), projects: rows.map((r) => toWire(ctx, r)) };
}

export async function createProject(db: Kysely<Database>, ctx: Context, name: string): Promise<Project> {
  const taken = new AppError('PROJECT_NAME_TAKEN', `A project named ${quoted(name)} already exists in this workspace.`);
  const existing = await db
    .selectFrom('projects')
    .select('id')
    .where('workspace_id', '=', ctx.workspaceId)
    .where('name', '=', name)
    .executeTakeFirst();
  if (existing) throw taken;
  const now = isoNow();
  const id = newObjectId();
  try {
    await db
      .insertInto('projects')
      .values({ id, workspace_id: ctx.workspaceId, name, user_id: ctx.user.id, created_at: now, updated_at: now })
      .execute();
  } catch (e) {
    if (isUniqueViolation(e)) throw taken;
    throw e;
  }
  return toWire(ctx, await projectQuery(db, ctx).where('projects.id', '=', id).executeTakeFirstOrThrow());
}
