import { isObjectId, isoNow, type JobArchiveBody, type JobListQuery } from '@runyard/contract';
import { sql, type Kysely, type Selectable } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { containsPattern } from '../store/like.js';
import type { Database, JobTable } from '../store/schema.js';
import type { AuthUser, Context } from './context.js';
import { jobDocuments } from './job-document.js';
import { requireJobOwnerOrAdmin } from './roles.js';

export async function jobRow(db: Kysely<Database>, workspaceId: string, id: string): Promise<Selectable<JobTable>> {
  const row = await db.selectFrom('jobs').selectAll().where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
  if (!row) throw new AppError('JOB_NOT_FOUND', `Job with ID '${id}' not found.`);
  return row;
}

/**
 * `GET /api/v1/jobs/{id}`. The public client may send no teamId or the literal `None`
 * (wire-api §1.3): then the job is looked up in every workspace the caller belongs to.
 */
export async function getJob(
  db: Kysely<Database>,
  dataDir: string,
  user: AuthUser,
  id: string,
  teamId?: string,
): Promise<Record<string, unknown>> {
  const scoped = teamId && teamId !== 'None';
  if (scoped && !isObjectId(teamId))
    throw new AppError('WORKSPACE_NOT_FOUND', `Workspace ${quoted(teamId)} not found, or you are not a member of it.`);
  const row = await db
    .selectFrom('jobs')
    .innerJoin('memberships', (j) => j.onRef('memberships.workspace_id', '=', 'jobs.workspace_id').on('memberships.user_id', '=', user.id))
    .selectAll('jobs')
    .where('jobs.id', '=', id)
    .$if(Boolean(scoped), (q) => q.where('jobs.workspace_id', '=', teamId!))
    .executeTakeFirst();
  if (!row) throw new AppError('JOB_NOT_FOUND', `Job with ID '${id}' not found.`);
  return (await jobDocuments(db, dataDir, [row]))[0];
}

const SORTS = { createdAt: 'created_at', name: 'name', status: 'status' } as const;

/** `GET /api/v2/jobs`: every server-side filter of the wire reference, newest first by default. */
export async function listJobs(db: Kysely<Database>, dataDir: string, ctx: Context, q: JobListQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 10;
  let base = db
    .selectFrom('jobs')
    .where('workspace_id', '=', ctx.workspaceId)
    .where('archived', '=', q['archived.status'] ? 1 : 0);
  if (q.status) base = base.where('status', '=', q.status.toLowerCase());
  if (q.name) base = base.where(sql<boolean>`lower(name) like ${containsPattern(q.name)} escape '\\'`);
  if (q.id) base = base.where('id', '=', q.id);
  if (q['project.id']) base = base.where('project_id', '=', q['project.id']);
  if (q['workflow.id']) base = base.where('workflow_id', '=', q['workflow.id']);
  if (q['user.id']) base = base.where('user_id', '=', q['user.id']);
  // Related analyses (jobs sharing a work directory): a bash job has none, as on CloudOS (its work directory is its
  // own), unless it was launched resumable or resumes another (a Runyard extension: then they share one).
  if (q['workDirectory.folderId'])
    base = base
      .where('work_folder_id', '=', q['workDirectory.folderId'])
      .where((eb) => eb.or([eb('workflow_type', '<>', 'docker'), eb('resumable', '=', 1), eb('resume_work_dir', 'is not', null)]));
  if (q['batch.jobQueue.id']) base = base.where('queue_id', '=', q['batch.jobQueue.id']);
  const sort = q.sort ?? '-createdAt';
  const column = SORTS[sort.replace(/^-/, '') as keyof typeof SORTS];
  const direction = sort.startsWith('-') ? 'desc' : 'asc';
  const [counts, rows] = await Promise.all([
    base
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number>(sql`case when status = 'completed' then 1 else 0 end`).as('completed'),
      ])
      .executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy(column, direction)
      .orderBy('id', direction)
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
  ]);
  return {
    jobs: await jobDocuments(db, dataDir, rows),
    paginationMetadata: {
      'Pagination-Count': Number(counts.n),
      'Pagination-Page': page,
      'Pagination-Limit': limit,
      'Pagination-Completed-Count': Number(counts.completed ?? 0),
    },
  };
}

/**
 * `PUT /api/v1/jobs`: archive or unarchive; every id must be a job of the workspace that the caller
 * may act on, or nothing changes.
 */
export async function setJobsArchived(db: Kysely<Database>, ctx: Context, body: JobArchiveBody): Promise<{ success: true }> {
  const ids = [...new Set(body.jobIds)];
  const found = await db
    .selectFrom('jobs')
    .select(['id', 'user_id'])
    .where('workspace_id', '=', ctx.workspaceId)
    .where('id', 'in', ids)
    .execute();
  const missing = ids.filter((id) => !found.some((f) => f.id === id));
  if (missing.length) throw new AppError('JOB_NOT_FOUND', `Job(s) not found in this workspace: ${missing.join(', ')}.`);
  const archived = body.update.archived.status;
  for (const job of found) requireJobOwnerOrAdmin(ctx, job, archived ? 'archive' : 'unarchive');
  const at = archived ? (body.update.archived.archivalTimestamp ?? isoNow()) : null;
  await db
    .updateTable('jobs')
    .set({ archived: archived ? 1 : 0, archived_at: at, updated_at: isoNow() })
    .where('workspace_id', '=', ctx.workspaceId)
    .where('id', 'in', ids)
    .execute();
  return { success: true };
}

/** The original submission body plus `_id` and `resourceId`, which clone removes (wire-api §2.1). */
export async function getRequestPayload(db: Kysely<Database>, ctx: Context, id: string): Promise<Record<string, unknown>> {
  const row = await jobRow(db, ctx.workspaceId, id);
  return { ...JSON.parse(row.request_json), _id: row.id, resourceId: row.id };
}
