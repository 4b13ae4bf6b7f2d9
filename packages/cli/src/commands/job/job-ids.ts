import { UsageError } from '../../errors/cli-error.js';
import { asObjectId, objectIdProblem } from '../../options/object-id.js';

/** `--job-ids a,b,c` as a list (spaces and empty entries dropped, duplicates once); none is a usage error. */
export function parseJobIds(value: string | undefined): string[] {
  const ids = [
    ...new Set(
      (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .map((s) => asObjectId(s) ?? s)
        .filter(Boolean),
    ),
  ];
  if (!ids.length) throw new UsageError('No job IDs provided. Give them as --job-ids ID1,ID2.');
  return ids;
}

/**
 * The ids that cannot be job ids, each with what a job id looks like. Batch commands report them
 * one by one and go on with the others, as cloudos-cli does with ids the server does not know.
 */
export function malformedJobIds(ids: string[]): Map<string, string> {
  return new Map(ids.filter((id) => !asObjectId(id)).map((id) => [id, objectIdProblem('job', '"runyard job list"')]));
}
