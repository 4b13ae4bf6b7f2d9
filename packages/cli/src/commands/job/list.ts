import type { JobDocument, JobListOptions } from '@runyard/client';
import { Command, InvalidArgumentError, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors/cli-error.js';
import { integerIn } from '../../options/integer.js';
import { emitList } from '../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../output/format.js';
import type { Column, ListView } from '../../output/list-view.js';
import { loadSdk } from '../../sdk.js';
import { at, ownerOf, scalar } from './fields.js';
import { jobId } from '../../options/object-id.js';

export interface JobListCommandOptions extends ConnectionFlags, ListOutputFlags {
  tableColumns?: string;
  allFields?: boolean;
  lastNJobs?: number | 'all';
  page: number;
  pageSize: number;
  archived?: boolean;
  filterStatus?: string;
  filterJobName?: string;
  filterProject?: string;
  filterWorkflow?: string;
  last?: boolean;
  filterJobId?: string;
  filterOnlyMine?: boolean;
  filterOwner?: string;
  filterQueue?: string;
}

type Sdk = Awaited<ReturnType<typeof loadSdk>>;

/** The columns of --table-columns (cloudos-cli's names), by name. */
function tableColumns(sdk: Sdk): Record<string, Column<JobDocument>> {
  return {
    status: { header: 'STATUS', value: (j) => j.status },
    name: { header: 'NAME', value: (j) => j.name },
    project: { header: 'PROJECT', value: (j) => scalar(at(j, 'project.name')) },
    owner: { header: 'OWNER', value: ownerOf },
    pipeline: { header: 'PIPELINE', value: (j) => scalar(at(j, 'workflow.name')) },
    id: { header: 'ID', value: (j) => j._id },
    submit_time: { header: 'SUBMITTED', value: (j) => scalar(sdk.formatJobTime(j.createdAt)) },
    end_time: { header: 'ENDED', value: (j) => scalar(sdk.formatJobTime(j.endTime)) },
    run_time: { header: 'RUN TIME', value: (j) => sdk.formatRunTime(j.startTime, j.endTime) },
    commit: { header: 'COMMIT', value: (j) => scalar(at(j, 'revision.commit')) },
    cost: {
      header: 'COST',
      value: (j) => (typeof j.computeCostSpent === 'number' ? `$${(j.computeCostSpent / 100).toFixed(4)}` : undefined),
    },
    resources: { header: 'RESOURCES', value: (j) => scalar(at(j, 'masterInstance.usedInstance.type')) },
    storage_type: { header: 'STORAGE TYPE', value: (j) => scalar(j.storageMode) },
  };
}

export const TABLE_COLUMN_NAMES = [
  'status',
  'name',
  'project',
  'owner',
  'pipeline',
  'id',
  'submit_time',
  'end_time',
  'run_time',
  'commit',
  'cost',
  'resources',
  'storage_type',
] as const;

const DEFAULT_COLUMNS = ['status', 'name', 'project', 'owner', 'pipeline', 'id', 'submit_time', 'run_time', 'cost'];

function parseTableColumns(value: string | undefined): string[] {
  if (value === undefined) return DEFAULT_COLUMNS;
  const names = value
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(TABLE_COLUMN_NAMES as readonly string[]).includes(n));
  if (!names.length || unknown.length) {
    throw new UsageError(
      `${unknown.length ? `Unknown table column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}` : 'No table column given'}; ` +
        `choose from ${TABLE_COLUMN_NAMES.join(',')}.`,
    );
  }
  return names;
}

/** The table shows the chosen columns; CSV (and --all-fields) are process_job_list then reorder_job_list. */
export function jobView(sdk: Sdk, columns: string[]): ListView<JobDocument> {
  const byName = tableColumns(sdk);
  return {
    noun: 'jobs',
    columns: columns.map((c) => byName[c]),
    records: (jobs, allFields) => sdk.reorderJobList(sdk.processJobList(jobs, allFields)),
  };
}

function lastNJobs(value: string): number | 'all' {
  if (value === 'all') return 'all';
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError("expected a positive integer or 'all'.");
  return n;
}

/**
 * The jobs of the workspace (get_job_list): one page (--page, --page-size), or the last N with
 * --last-n-jobs; every filter of cloudos-cli. A hint on stderr says when more pages exist.
 */
export async function jobList(
  opts: JobListCommandOptions,
  ctx: CliContext,
  explicit: (name: string) => boolean = () => false,
): Promise<void> {
  const columns = parseTableColumns(opts.tableColumns);
  const sdk = await loadSdk();
  if (opts.filterStatus && !sdk.JOB_LIST_STATUSES.includes(opts.filterStatus.toLowerCase())) {
    throw new UsageError(`Invalid --filter-status "${opts.filterStatus}"; choose from ${sdk.JOB_LIST_STATUSES.join(', ')}.`);
  }
  if (opts.lastNJobs !== undefined && (explicit('page') || explicit('pageSize'))) {
    ctx.stderr.write('Note: --last-n-jobs lists the most recent jobs; --page and --page-size are ignored.\n');
  }
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const options: JobListOptions = {
    ...(opts.lastNJobs !== undefined ? { lastNJobs: opts.lastNJobs } : { page: opts.page, pageSize: opts.pageSize }),
    archived: Boolean(opts.archived),
    filterStatus: opts.filterStatus,
    filterJobName: opts.filterJobName,
    filterProject: opts.filterProject,
    filterWorkflow: opts.filterWorkflow,
    last: Boolean(opts.last),
    filterJobId: opts.filterJobId,
    filterOnlyMine: Boolean(opts.filterOnlyMine),
    filterOwner: opts.filterOwner,
    filterQueue: opts.filterQueue,
  };
  const { jobs, paginationMetadata } = await withClient(conn, (client) => client.getJobList(conn.workspaceId, options));
  await emitList(jobs, jobView(sdk, columns), opts, ctx);
  const total = paginationMetadata?.['Pagination-Count'];
  if (opts.lastNJobs === undefined && typeof total === 'number' && opts.page * opts.pageSize < total) {
    const pages = Math.ceil(total / opts.pageSize);
    ctx.stderr.write(`Page ${opts.page} of ${pages} (${total} jobs); the next one: --page ${opts.page + 1}\n`);
  }
}

export function jobListCommand(ctx: CliContext): Command {
  const cmd = new Command('list').description('list the jobs of the workspace, newest first');
  addListOutputOptions(cmd);
  cmd
    .option(
      '--table-columns <names>',
      `columns of the table, comma-separated (e.g. status,name,id), from: ${TABLE_COLUMN_NAMES.join(', ')}`,
    )
    .option('--all-fields', 'every field of the job documents (table and csv)')
    .addOption(new Option('--last-n-jobs <n>', "the most recent N jobs, or 'all' (instead of a page)").argParser(lastNJobs))
    .addOption(new Option('--page <n>', 'page to show (1 is the newest)').argParser(integerIn(1, 1_000_000)).default(1))
    .addOption(new Option('--page-size <n>', 'jobs per page, at most 100').argParser(integerIn(1, 100)).default(10))
    .option('--archived', 'list the archived jobs instead')
    .option('--filter-status <status>', 'only jobs with this status: completed, running, failed, aborted, queued, pending, initializing')
    .option('--filter-job-name <text>', 'only jobs whose name contains this text (any case)')
    .option('--filter-project <name>', 'only jobs of this project')
    .option('--filter-workflow <name>', 'only jobs of this workflow')
    .option('--last', 'with --filter-workflow, the most recently imported workflow when several have the name')
    .option('--filter-job-id <id>', 'only the job with this id', jobId)
    .addOption(new Option('--filter-only-mine', 'only your jobs').conflicts('filterOwner'))
    .option('--filter-owner <user>', 'only the jobs of this user (username or name)')
    .option('--filter-queue <label>', 'only jobs of this job queue (label or name)');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobListCommandOptions, command: Command) =>
    jobList(opts, ctx, (name) => command.getOptionValueSource(name) === 'cli'),
  );
}
