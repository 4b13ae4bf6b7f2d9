// process_job_list and reorder_job_list (seed contract §4.7; save_job_list_to_csv is job-csv.ts). The selected columns,
// the renaming and the order are those of the public client (cloudos-cli 2.90.2), so its CSV files and ours match.
import { RunyardValueError } from '../errors.js';
import { toTable, type Table } from '../table.js';
import type { JobDocument } from './types.js';

/** The columns process_job_list keeps without `allFields` (those present in the list, in this order). */
export const JOB_COLUMNS = [
  'status',
  'name',
  'project.name',
  'user.name',
  'user.surname',
  'workflow.name',
  '_id',
  'startTime',
  'endTime',
  'createdAt',
  'updatedAt',
  'revision.commit',
  'realInstancesExecutionCost',
  'masterInstance.usedInstance.type',
  'storageMode',
  'workflow.repository.url',
  'nextflowVersion',
  'batch.enabled',
  'storageSizeInGb',
  'batch.jobQueue.id',
  'usesFusionFileSystem',
] as const;

/** How reorder_job_list renames columns. (`updatedAt` is shown as "End time", as the public client does.) */
export const JOB_COLUMN_TITLES: Readonly<Record<string, string>> = {
  status: 'Status',
  name: 'Name',
  'project.name': 'Project',
  user: 'Owner',
  'workflow.name': 'Pipeline',
  _id: 'ID',
  createdAt: 'Submit time',
  updatedAt: 'End time',
  'revision.commit': 'Commit',
  realInstancesExecutionCost: 'Cost',
  'masterInstance.usedInstance.type': 'Resources',
  storageMode: 'Storage type',
  'workflow.repository.url': 'Pipeline url',
  nextflowVersion: 'Nextflow version',
  'batch.enabled': 'Executor',
  storageSizeInGb: 'Storage size',
  'batch.jobQueue.id': 'Job queue ID',
  usesFusionFileSystem: 'Accelerated file staging',
};

/** The order of the renamed columns; any other column follows in its own order. */
export const JOB_CSV_ORDER: readonly string[] = [
  'Status',
  'Name',
  'Project',
  'Owner',
  'Pipeline',
  'ID',
  'Submit time',
  'End time',
  'Run time',
  'Commit',
  'Cost',
  'Resources',
  'Storage type',
  'Pipeline url',
  'Nextflow version',
  'Executor',
  'Storage size',
  'Job queue ID',
  'Accelerated file staging',
];

/**
 * process_job_list: one row per job with the selected columns that occur in the list (JOB_COLUMNS), or with
 * `allFields` every flattened key. An empty list is an empty table; a list with none of the columns is an error.
 */
export function processJobList(jobs: JobDocument[], allFields = false): Table {
  if (!jobs.length) return { columns: [], rows: [] };
  const table = toTable(jobs, JOB_COLUMNS, allFields);
  if (allFields) return table;
  const present = table.columns.filter((c) => table.rows.some((r) => r[c] !== undefined));
  if (!present.length) throw new RunyardValueError(`None of the job columns ${JOB_COLUMNS.join(', ')} is in the job list.`);
  return { columns: present, rows: table.rows.map((r) => Object.fromEntries(present.map((c) => [c, r[c]]))) };
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

/** `2024-01-02T03:04:05.678Z` as `2024-01-02 03:04:05 UTC`; other text is left as it is. */
export function formatJobTime(value: unknown): unknown {
  if (!present(value)) return null;
  if (typeof value !== 'string') return value;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return value;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** The time between two ISO times as `1h 2m 3s`, `2m 3s` or `3s`; null when either is missing. */
export function formatRunTime(start: unknown, end: unknown): string | null {
  if (typeof start !== 'string' || typeof end !== 'string' || !start || !end) return null;
  const a = Date.parse(start);
  const b = Date.parse(end);
  if (Number.isNaN(a) || Number.isNaN(b)) return null;
  const total = Math.trunc((b - a) / 1000);
  const h = Math.trunc(total / 3600);
  const m = Math.trunc((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${m}m ${s}s`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

/** Cents as dollars with four decimals. */
function formatCost(value: unknown): unknown {
  if (!present(value)) return null;
  const n = Number(value);
  return Number.isFinite(n) ? (n / 100).toFixed(4) : value;
}

/**
 * reorder_job_list: the table of processJobList made readable: `user.name` and `user.surname` joined as Owner,
 * times as `YYYY-MM-DD HH:MM:SS UTC`, the cost (cents) in dollars, a "Run time" column from start to end,
 * `batch.enabled` as "Batch" or "N/A", columns renamed (JOB_COLUMN_TITLES) and ordered (JOB_CSV_ORDER),
 * the raw start and end times left out. An empty table stays empty.
 */
export function reorderJobList(table: Table): Table {
  if (!table.rows.length) return { columns: [], rows: [] };
  const has = (c: string) => table.columns.includes(c);
  const rows = table.rows.map((src) => {
    const row: Record<string, unknown> = { ...src };
    if (has('user.name') && has('user.surname')) {
      row.user =
        present(src['user.name']) || present(src['user.surname']) ? `${src['user.name'] ?? ''} ${src['user.surname'] ?? ''}`.trim() : null;
      delete row['user.name'];
      delete row['user.surname'];
    }
    for (const c of ['startTime', 'endTime', 'createdAt', 'updatedAt']) if (has(c)) row[c] = formatJobTime(src[c]);
    if (has('realInstancesExecutionCost')) row.realInstancesExecutionCost = formatCost(src.realInstancesExecutionCost);
    if (has('startTime') && has('endTime')) row['Run time'] = formatRunTime(src.startTime, src.endTime);
    if (has('batch.enabled')) row['batch.enabled'] = src['batch.enabled'] === true ? 'Batch' : 'N/A';
    delete row.startTime;
    delete row.endTime;
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [JOB_COLUMN_TITLES[k] ?? k, v]));
  });
  const columns: string[] = [];
  for (const c of table.columns) {
    if (c === 'startTime' || c === 'endTime') continue;
    const name =
      c === 'user.name' || c === 'user.surname' ? (has('user.name') && has('user.surname') ? 'Owner' : c) : (JOB_COLUMN_TITLES[c] ?? c);
    if (!columns.includes(name)) columns.push(name);
  }
  if (has('startTime') && has('endTime')) columns.push('Run time');
  const ordered = [...JOB_CSV_ORDER.filter((c) => columns.includes(c)), ...columns.filter((c) => !JOB_CSV_ORDER.includes(c))];
  return { columns: ordered, rows };
}
