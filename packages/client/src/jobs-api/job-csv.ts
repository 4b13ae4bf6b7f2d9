// save_job_list_to_csv (seed contract §4.7): the job table written to a local file (node only).
import { writeFile } from 'node:fs/promises';
import { tableToCsv } from '../table.js';
import { processJobList, reorderJobList } from './job-table.js';
import type { JobDocument } from './types.js';

/**
 * save_job_list_to_csv: processJobList, then reorderJobList, written as CSV to `filename` (default
 * `my_jobs.csv`); an empty list writes an empty file. Returns the file name and the number of jobs written.
 */
export async function saveJobListToCsv(
  jobs: JobDocument[],
  filename = 'my_jobs.csv',
  allFields = false,
): Promise<{ filename: string; rows: number }> {
  const table = reorderJobList(processJobList(jobs, allFields));
  await writeFile(filename, table.columns.length ? tableToCsv(table) : '');
  return { filename, rows: table.rows.length };
}
