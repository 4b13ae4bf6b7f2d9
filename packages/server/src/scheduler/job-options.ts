import type { JobRow } from '../store/rows.js';

/**
 * Options of the submission body that are kept as sent (the job document reports them) but that
 * the local executor cannot honour. Read from the stored request, so no column is needed.
 */

/** The stored submission body; a row from before it was kept reads as empty. */
function requestOf(job: Pick<JobRow, 'request_json'>): Record<string, unknown> {
  try {
    const body: unknown = JSON.parse(job.request_json);
    return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function usesFusionFileSystem(job: Pick<JobRow, 'request_json'>): boolean {
  return requestOf(job).usesFusionFileSystem === true;
}

/** What each option without effect tells the job's log when it is on. */
const WITHOUT_EFFECT: readonly { key: string; note: string }[] = [
  {
    key: 'usesFusionFileSystem',
    note: 'Runyard: usesFusionFileSystem has no effect on this executor: inputs are staged by Runyard before the task starts.',
  },
  {
    key: 'accelerateSavingResults',
    note: 'Runyard: accelerateSavingResults has no effect on this executor: results are saved when the task ends.',
  },
];

/** One log line per option of the job that is on but has no effect here. */
export function ignoredOptionNotes(job: Pick<JobRow, 'request_json'>): string[] {
  const body = requestOf(job);
  return WITHOUT_EFFECT.filter((o) => body[o.key] === true).map((o) => o.note);
}
