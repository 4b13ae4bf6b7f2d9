import {
  isoNow,
  JOB_STATUSES,
  MAX_ITEM_NAME,
  newObjectId,
  TERMINAL_JOB_STATUSES,
  type JobDataDeleteQuery,
  type JobDataProperty,
} from '@runyard/contract';
import type { Kysely, Selectable } from 'kysely';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { defaultBucketOf } from '../scheduler/job-paths.js';
import type { StorageKind } from '../storage/storage-deps.js';
import { insertRows } from '../store/prepared-query.js';
import type { Database, JobTable } from '../store/schema.js';
import type { Context } from './context.js';
import { datasetOfKind, type FolderRow, type UserInfo } from './data-items.js';
import { requireJobOwnerOrAdmin } from './roles.js';

/**
 * A job's results and work directory as File Explorer folders, and their deletion
 * (`DELETE /api/v1/jobs/{id}/data`): the request only marks the folder `scheduledForDeletion`,
 * recording who and when; the deletion worker removes the blobs.
 */

/** Job statuses in which a job may still read or write its work directory. */
export const ACTIVE_JOB_STATUSES = JOB_STATUSES.filter((s) => !TERMINAL_JOB_STATUSES.includes(s));

export type { StorageKind };

/** The storage kind and Azure account the configuration chooses (the same the blob store is built from). */
export function storageKindOf(config: Config): StorageKind {
  if (config.storageBackend !== 'azure') return { kind: config.storageBackend as StorageKind['kind'], azureAccount: null };
  const connection = config.azureConnectionString;
  const fromConnection = /(?:^|;)\s*UseDevelopmentStorage=true/i.test(connection)
    ? 'devstoreaccount1'
    : /(?:^|;)\s*AccountName=([^;]+)/i.exec(connection)?.[1];
  return { kind: 'azure', azureAccount: fromConnection ?? (config.azureAccountName || null) };
}

export interface JobFolderColumns {
  results_folder_id: string;
  work_folder_id: string;
  work_bucket: string;
  work_prefix: string;
}

/**
 * Locks and returns the work folder a job resumes from (`resumeWorkDir`): a work directory of a
 * job of this workspace, the caller's own unless an admin's, that is not being deleted and that no
 * unfinished job uses (409 FOLDER_IN_USE, naming the job). Inside the submission's transaction, so a
 * deletion either sees the new job or the submission sees the deletion.
 */
export async function lockResumeFolder(tx: Kysely<Database>, ctx: Context, folderId: string): Promise<FolderRow> {
  const folder = await tx
    .selectFrom('folders')
    .selectAll()
    .where('id', '=', folderId)
    .where('workspace_id', '=', ctx.workspaceId)
    .executeTakeFirst();
  if (!folder || folder.job_role !== 'work')
    throw new AppError('FOLDER_NOT_FOUND', `resumeWorkDir: no work directory ${quoted(folderId)} in this workspace.`);
  // Resuming writes into that job's work directory (and holds off its deletion): the owner's act.
  requireJobOwnerOrAdmin(ctx, jobOfFolder(folder), 'resume');
  // A no-op update takes the row's lock on PostgreSQL (SQLite runs one write transaction at a time).
  const locked = await tx
    .updateTable('folders')
    .set({ updated_at: folder.updated_at })
    .where('id', '=', folderId)
    .where('status', '=', 'ready')
    .executeTakeFirst();
  if (Number(locked.numUpdatedRows) === 0)
    throw new AppError('DELETION_CONFLICT', `resumeWorkDir: the work directory ${quoted(folderId)} is ${folder.status}.`);
  // One run at a time in a work directory (Nextflow itself refuses a second run of a session whose
  // lock is held). After the lock, so that of two submissions resuming it the second sees the first.
  const user = await activeJobUsing(tx, ctx.workspaceId, folderId);
  if (user)
    throw new AppError(
      'FOLDER_IN_USE',
      `resumeWorkDir: the work directory ${quoted(folder.name)} is in use by job ${user.id} (${quoted(user.name)}), which is ${user.status}; resume from it once that job has finished.`,
    );
  return folder;
}

/** The job a job folder belongs to: registerJobFolders records its id and its owner on the folder. */
function jobOfFolder(folder: FolderRow): { id: string; user_id: string } {
  return { id: folder.job_id ?? folder.id, user_id: folder.user_id };
}

/**
 * `<jobname>-<jobid>` (the public client finds a job's results folder by the id in its name), a
 * valid item name whatever the job is called: `/`, `\` and control characters become `_`, and a
 * long job name is cut so that the whole fits in MAX_ITEM_NAME.
 */
export function jobFolderName(jobName: string, jobId: string, suffix = ''): string {
  const safe = jobName.replace(/[/\\\u0000-\u001f\u007f-\u009f]/g, '_');
  return `${safe.slice(0, MAX_ITEM_NAME - jobId.length - 1 - suffix.length)}-${jobId}${suffix}`;
}

/**
 * Registers the folders of a new job in its transaction: `Analyses Results/<name>-<id>` for its
 * results, and its work directory (its parent is the job), or the work folder it resumes from.
 */
export async function registerJobFolders(
  tx: Kysely<Database>,
  storage: StorageKind,
  job: { id: string; name: string; workspaceId: string; projectId: string; userId: string },
  resumeFrom?: FolderRow,
): Promise<JobFolderColumns> {
  const analyses = await datasetOfKind(tx, job.workspaceId, job.projectId, 'AnalysesResults');
  const now = isoNow();
  const bucket = defaultBucketOf(job.workspaceId);
  const prefix = `${job.workspaceId}/jobs/${job.id}`;
  const azure = storage.kind === 'azure';
  const folder = (name: string, key: string, parentKind: string, parentId: string, role: string) => ({
    id: newObjectId(),
    workspace_id: job.workspaceId,
    name,
    item_type: azure ? 'AzureBlobFolder' : 'S3Folder',
    parent_kind: parentKind,
    parent_id: parentId,
    bucket,
    account: azure ? storage.azureAccount : null,
    storage_key: key,
    is_managed: 1,
    user_id: job.userId,
    job_id: job.id,
    job_role: role,
    status_message: null,
    deleted_by: null,
    deletion_date: null,
    created_at: now,
    updated_at: now,
  });
  const results = folder(jobFolderName(job.name, job.id), `${prefix}/results`, 'Dataset', analyses.id, 'results');
  const rows = [results];
  let work: { id: string; bucket: string; key: string };
  if (resumeFrom) {
    work = { id: resumeFrom.id, bucket: resumeFrom.bucket!, key: resumeFrom.storage_key! };
  } else {
    const w = folder(jobFolderName(job.name, job.id, '-workdir'), `${prefix}/work`, 'Job', job.id, 'work');
    rows.push(w);
    work = { id: w.id, bucket, key: w.storage_key };
  }
  await insertRows(tx, 'folders', rows);
  return { results_folder_id: results.id, work_folder_id: work.id, work_bucket: work.bucket, work_prefix: work.key };
}

type JobRow = Selectable<JobTable>;

export interface JobFolderInfo {
  status: string;
  /** The Azure storage account, for a folder in Azure Blob Storage. */
  azureAccount?: string;
  deletedBy?: UserInfo;
  deletionDate?: string;
}

/** The results and work folders of these jobs, with who deleted them, in one query. */
export async function jobFolderInfo(db: Kysely<Database>, jobs: JobRow[]): Promise<Map<string, JobFolderInfo>> {
  const ids = [...new Set(jobs.flatMap((j) => [j.results_folder_id, j.work_folder_id]).filter((x): x is string => Boolean(x)))];
  if (!ids.length) return new Map();
  const rows = await db
    .selectFrom('folders')
    .leftJoin('users', 'users.id', 'folders.deleted_by')
    .select([
      'folders.id',
      'folders.status',
      'folders.item_type',
      'folders.account',
      'folders.deleted_by',
      'folders.deletion_date',
      'users.name',
      'users.surname',
      'users.email',
    ])
    .where('folders.id', 'in', ids)
    .execute();
  return new Map(
    rows.map((r) => [
      r.id,
      {
        status: r.status,
        ...(r.item_type === 'AzureBlobFolder' && r.account && { azureAccount: r.account }),
        ...(r.deleted_by && { deletedBy: { id: r.deleted_by, name: r.name ?? '', surname: r.surname ?? '', email: r.email ?? '' } }),
        ...(r.deletion_date && { deletionDate: r.deletion_date }),
      },
    ]),
  );
}

/** The job document's `analysisResults`, `workDirectory` and `resumeWorkDir` (wire-api §2.1). */
export function jobFolderKeys(job: JobRow, folders: Map<string, JobFolderInfo>): Record<string, unknown> {
  const ref = (id: string | null | undefined) => {
    if (!id) return undefined;
    const f = folders.get(id);
    return { folderId: id, ...(f?.deletedBy && { deletedBy: f.deletedBy }), ...(f?.deletionDate && { deletionDate: f.deletionDate }) };
  };
  const resumed = Boolean(job.resume_work_dir);
  return {
    analysisResults: ref(job.results_folder_id),
    workDirectory: ref(job.work_folder_id),
    // The folder a resume of this job reuses: its work directory, when the job can be resumed.
    resumeWorkDir: job.resumable === 1 || resumed ? (job.work_folder_id ?? job.resume_work_dir) : null,
  };
}

/** The first job that still runs (or waits to run) in a work folder, or undefined. */
async function activeJobUsing(db: Kysely<Database>, workspaceId: string, folderId: string) {
  return db
    .selectFrom('jobs')
    .select(['id', 'name', 'status'])
    .where('workspace_id', '=', workspaceId)
    .where('work_folder_id', '=', folderId)
    .where('status', 'in', ACTIVE_JOB_STATUSES)
    .orderBy('created_at')
    .executeTakeFirst();
}

/**
 * Marks a job folder `scheduledForDeletion` (from `ready`, or again after `failedToDelete`),
 * recording who and when. Refused while a job that has not finished uses it: the job itself for
 * results, or any job in the work directory (a resumed job included).
 */
export async function scheduleFolderDeletion(db: Kysely<Database>, ctx: Context, folder: FolderRow): Promise<void> {
  requireJobOwnerOrAdmin(ctx, jobOfFolder(folder), 'delete the data of');
  await db.transaction().execute((tx) => markForDeletion(tx, ctx, folder));
}

/** scheduleFolderDeletion inside the caller's transaction. */
async function markForDeletion(tx: Kysely<Database>, ctx: Context, folder: FolderRow): Promise<void> {
  if (folder.job_role === 'results' && folder.job_id) {
    const job = await tx.selectFrom('jobs').select(['id', 'status']).where('id', '=', folder.job_id).executeTakeFirst();
    if (job && !TERMINAL_JOB_STATUSES.includes(job.status as never)) {
      throw new AppError('JOB_STATE_CONFLICT', `Job ${job.id} is ${job.status}: its results can be deleted once it has finished.`);
    }
  }
  const now = isoNow();
  const marked = await tx
    .updateTable('folders')
    .set({ status: 'scheduledForDeletion', deleted_by: ctx.user.id, deletion_date: now, status_message: null, updated_at: now })
    .where('id', '=', folder.id)
    .where('workspace_id', '=', ctx.workspaceId)
    .where('status', 'in', ['ready', 'failedToDelete'])
    .executeTakeFirst();
  if (Number(marked.numUpdatedRows) === 0) {
    const current = await tx.selectFrom('folders').select('status').where('id', '=', folder.id).executeTakeFirst();
    throw new AppError('DELETION_CONFLICT', `Folder ${quoted(folder.name)} is already ${current?.status ?? 'deleted'}.`);
  }
  // After the mark, which holds the folder's row: a job resuming from it now is either seen here or refused.
  const user = await activeJobUsing(tx, ctx.workspaceId, folder.id);
  if (user)
    throw new AppError(
      'FOLDER_IN_USE',
      `The work directory ${quoted(folder.name)} is in use by job ${user.id} (${quoted(user.name)}), which is ${user.status}.`,
    );
}

/** `DELETE /api/v1/jobs/{id}/data?properties[]=analysisResults|workDirectory`. */
export async function deleteJobData(db: Kysely<Database>, ctx: Context, jobId: string, query: JobDataDeleteQuery): Promise<void> {
  const properties = [...new Set<JobDataProperty>([...(query['properties[]'] ?? []), ...(query.properties ?? [])])];
  if (!properties.length)
    throw new AppError('VALIDATION_FAILED', 'querystring.properties[] is required: analysisResults or workDirectory.');
  const job = await db
    .selectFrom('jobs')
    .select(['id', 'user_id', 'status', 'results_folder_id', 'work_folder_id'])
    .where('id', '=', jobId)
    .where('workspace_id', '=', ctx.workspaceId)
    .executeTakeFirst();
  if (!job) throw new AppError('JOB_NOT_FOUND', `Job with ID '${jobId}' not found.`);
  requireJobOwnerOrAdmin(ctx, job, 'delete the data of');
  // Both or neither, when both are asked for.
  await db.transaction().execute(async (tx) => {
    for (const property of properties) {
      const folderId = property === 'analysisResults' ? job.results_folder_id : job.work_folder_id;
      const what = property === 'analysisResults' ? 'results folder' : 'work directory';
      const folder = folderId
        ? await tx
            .selectFrom('folders')
            .selectAll()
            .where('id', '=', folderId)
            .where('workspace_id', '=', ctx.workspaceId)
            .executeTakeFirst()
        : undefined;
      if (!folder) throw new AppError('FOLDER_NOT_FOUND', `Job ${jobId} has no ${what}.`);
      await markForDeletion(tx, ctx, folder);
    }
  });
}
