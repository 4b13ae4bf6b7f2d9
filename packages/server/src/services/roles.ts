import { ANY_JOB_ROLE, hasRole, type Role } from '@runyard/contract';
import { AppError } from '../errors/app-error.js';
import type { Context } from './context.js';

/** Refuses (403, nothing done) unless the caller's role in the workspace is `needed` or above. */
export function requireRole(ctx: Context, needed: Role): void {
  if (hasRole(ctx.role, needed)) return;
  throw new AppError('FORBIDDEN', `This needs the ${needed} role in this workspace; you are ${article(ctx.role)} ${ctx.role}.`);
}

/**
 * A member acts only on its own jobs; an admin or owner on every job of the workspace. Cloning
 * another's job is a read and a submission, so it needs no ownership.
 */
export function requireJobOwnerOrAdmin(ctx: Context, job: { id: string; user_id: string }, action: string): void {
  if (job.user_id === ctx.user.id || hasRole(ctx.role, ANY_JOB_ROLE)) return;
  throw new AppError(
    'FORBIDDEN',
    `Job ${job.id} belongs to another user: to ${action} it you need the ${ANY_JOB_ROLE} role in this workspace; you are ${article(ctx.role)} ${ctx.role}.`,
  );
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}
