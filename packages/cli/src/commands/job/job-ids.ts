import { UsageError } from '../../errors/cli-error.js';

/** `--job-ids a,b,c` as a list (spaces and empty entries dropped, duplicates once); none is a usage error. */
export function parseJobIds(value: string | undefined): string[] {
  const ids = [
    ...new Set(
      (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (!ids.length) throw new UsageError('No job IDs provided. Give them as --job-ids ID1,ID2.');
  return ids;
}
