import type { SessionRow } from './session-state.js';

/**
 * Options of a session that are kept as asked (its document shows them) but that a session on
 * this server cannot honour: said in the session's document (`runyardNotes`) and at the top of
 * its log, never applied in silence.
 */
export function sessionOptionNotes(
  s: Pick<
    SessionRow,
    'is_cost_saving' | 'storage_size_gb' | 'storage_mode' | 'execution_platform' | 'backend' | 'r_version' | 'cluster_json'
  >,
): string[] {
  const notes = [
    `Runyard: storageSizeInGb (${s.storage_size_gb}) has no effect here: the session's home has no size limit of its own (the server's disk is shared).`,
    `Runyard: the session runs on this server, not on ${s.execution_platform}; its price is its instance type's from the server's catalogue.`,
  ];
  if (s.is_cost_saving === 1)
    notes.push("Runyard: isCostSaving (spot) has no effect here: the session runs at its instance type's price and is never reclaimed.");
  if (s.storage_mode !== 'regular')
    notes.push(`Runyard: storageMode ${s.storage_mode} has no effect here: the home is a directory on the server.`);
  if (s.backend === 'rstudio' && s.r_version)
    notes.push(
      `Runyard: rVersion ${s.r_version} has no effect here: the R of the operator's command (RUNYARD_SESSION_COMMAND_RSTUDIO) runs.`,
    );
  if (s.backend === 'spark' && s.cluster_json)
    notes.push(
      "Runyard: the Spark cluster's instances have no effect here: the operator's command (RUNYARD_SESSION_COMMAND_SPARK) runs on this server in the session's sandbox.",
    );
  return notes;
}
