import type { JobDocument } from '@runyard/client';

/** The value at a dotted path (`project.name`) of a job document. */
export function at(doc: unknown, dotted: string): unknown {
  let v = doc;
  for (const key of dotted.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/** A scalar as a table cell; objects, null and undefined as nothing. */
export function scalar(v: unknown): string | number | boolean | undefined {
  return v === null || v === undefined || typeof v === 'object' ? undefined : (v as string | number | boolean);
}

/** The job's owner as "name surname", else the email. */
export function ownerOf(job: JobDocument): string | undefined {
  const user = job.user as { name?: string; surname?: string; email?: string } | undefined;
  return [user?.name, user?.surname].filter(Boolean).join(' ') || user?.email;
}
