import { isoNow, type JobStatus } from '@runyard/contract';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { isTerminal } from '../scheduler/job-state.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { jobRow } from './jobs.js';
import { requireJobOwnerOrAdmin } from './roles.js';

/**
 * Aborts a job. One that has not been claimed is aborted at once; one that a scheduler holds
 * becomes `aborting` and its scheduler stops the task (gracefully, or at once with force).
 * Each step is a conditional update, so a job that finishes meanwhile is never overwritten.
 */
export async function abortJob(db: Kysely<Database>, ctx: Context, id: string, force: boolean): Promise<{ status: JobStatus }> {
  for (let tries = 0; tries < 5; tries++) {
    const job = await jobRow(db, ctx.workspaceId, id);
    requireJobOwnerOrAdmin(ctx, job, 'abort');
    const status = job.status as JobStatus;
    if (isTerminal(status)) throw new AppError('JOB_STATE_CONFLICT', `Job is already ${status}!`);
    const now = isoNow();
    const next: JobStatus = status === 'queued' ? 'aborted' : 'aborting';
    const r = await db
      .updateTable('jobs')
      .set({
        status: next,
        abort_force: force ? 1 : job.abort_force,
        updated_at: now,
        ...(next === 'aborted' && { end_time: now, status_message: 'Aborted before it started.' }),
      })
      .where('id', '=', id)
      .where('status', '=', status)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 1) return { status: next };
  }
  throw new AppError('JOB_STATE_CONFLICT', `Job ${id} changed while it was being aborted; try again.`);
}
