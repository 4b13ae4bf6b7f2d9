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

/** What each option without effect tells the job's log when the body sets it (`set`). */
const WITHOUT_EFFECT: readonly { key: string; set: (body: Record<string, unknown>) => boolean; note: string }[] = [
  {
    key: 'usesFusionFileSystem',
    set: (b) => b.usesFusionFileSystem === true,
    note: 'Runyard: usesFusionFileSystem has no effect on this executor: inputs are staged by Runyard before the task starts.',
  },
  {
    key: 'accelerateSavingResults',
    set: (b) => b.accelerateSavingResults === true,
    note: 'Runyard: accelerateSavingResults has no effect on this executor: results are saved when the task ends.',
  },
  {
    key: 'saveProcessLogs',
    set: (b) => b.saveProcessLogs === false,
    note: "Runyard: saveProcessLogs is off, which has no effect here: the job's logs are kept in its logs folder, and its tasks' own logs in its work directory.",
  },
  {
    key: 'revision.digest',
    set: (b) => {
      const revision = b.revision;
      return revision !== null && typeof revision === 'object' && Boolean((revision as Record<string, unknown>).digest);
    },
    note: "Runyard: revision.digest has no effect here: a container job runs its workflow's image by name and tag, and a git workflow the commit of its branch or tag.",
  },
  {
    key: 'azureBatch',
    set: (b) => b.azureBatch !== undefined && b.azureBatch !== null,
    note: "Runyard: azureBatch (its vmType, spot and diskSizeInGb) has no effect here: the job runs on its queue's executor, not on Azure Batch.",
  },
];

/** The options (dotted keys) that a job's log notes as without effect when a body sets them. */
export const OPTIONS_WITHOUT_EFFECT: readonly string[] = WITHOUT_EFFECT.map((o) => o.key);

/** One log line per option of the job that is set but has no effect here. */
export function ignoredOptionNotes(job: Pick<JobRow, 'request_json'>): string[] {
  const body = requestOf(job);
  return WITHOUT_EFFECT.filter((o) => o.set(body)).map((o) => o.note);
}
