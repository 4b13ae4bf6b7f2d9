import { duration } from '../../output/duration.js';
import type { InteractiveSession } from '@runyard/client';
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
import { dollars, ownerOf, shownStatus, typeName } from './common.js';

export interface SessionListOptions extends ConnectionFlags, ListOutputFlags {
  filterStatus?: string[];
  limit: number;
  page: number;
  filterOnlyMine?: boolean;
  archived?: boolean;
  tableColumns?: string;
  allFields?: boolean;
}

/** Sessions per page: the server's most (wire-api §2.11). */
export const MAX_LIMIT = 100;

/** The status names --filter-status takes: cloudos-cli's, the seed contract's, and the API's own. */
export const FILTER_STATUSES = [
  'running',
  'paused',
  'stopped',
  'provisioning',
  'initialising',
  'initializing',
  'setup',
  'scheduled',
  'ready',
  'aborting',
  'aborted',
  'terminated',
] as const;

function statusList(value: string, previous: string[] | undefined): string[] {
  const names = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !(FILTER_STATUSES as readonly string[]).includes(n));
  if (!names.length || unknown.length) {
    throw new InvalidArgumentError(`"${unknown.join(', ') || value}" is not a status; choose from ${FILTER_STATUSES.join(', ')}.`);
  }
  return [...(previous ?? []), ...names];
}

function limit(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer.');
  if (n > MAX_LIMIT)
    throw new InvalidArgumentError(`Limit cannot exceed ${MAX_LIMIT}; use --limit with a value <= ${MAX_LIMIT} and --page.`);
  return n;
}

const at = (s: InteractiveSession, f: (s: InteractiveSession) => unknown) => {
  const v = f(s);
  return v === null || v === undefined ? '' : (v as string | number | boolean);
};

function timeLeft(date: string | null | undefined): string {
  if (!date) return '-';
  const seconds = (Date.parse(date) - Date.now()) / 1000;
  if (!Number.isFinite(seconds)) return '-';
  if (seconds <= 0) return 'Expired';
  const h = Math.floor(seconds / 3600);
  if (h > 24) return `${Math.floor(h / 24)}d ${h % 24}h`;
  return h > 0 ? `${h}h ${Math.floor((seconds % 3600) / 60)}m` : `${Math.floor(seconds / 60)}m`;
}

/** The columns of --table-columns, with cloudos-cli's names. */
const COLUMNS: Record<string, Column<InteractiveSession>> = {
  id: { header: 'ID', value: (s) => s._id },
  name: { header: 'NAME', value: (s) => s.name },
  status: { header: 'STATUS', value: (s) => shownStatus(s.status) },
  type: { header: 'TYPE', value: (s) => typeName(s.interactiveSessionType) },
  instance: { header: 'INSTANCE', value: (s) => at(s, (x) => x.resources?.instanceType) },
  cost: { header: 'COST', value: (s) => dollars(s.totalCostInUsd) },
  owner: { header: 'OWNER', value: ownerOf },
  project: { header: 'PROJECT', value: (s) => at(s, (x) => x.project?.name) },
  created_at: { header: 'CREATED', value: (s) => s.createdAt },
  runtime: { header: 'RUNTIME', value: (s) => duration(s.totalRunningTimeInSeconds ?? 0) },
  saved_at: { header: 'SAVED', value: (s) => s.lastSavedAt ?? '-' },
  resources: {
    header: 'RESOURCES',
    value: (s) => (s.resources ? `${s.resources.vcpus} vCPU, ${s.resources.memoryGiB} GiB, ${s.resources.storageSizeInGb} GB` : ''),
  },
  backend: { header: 'BACKEND', value: (s) => s.backend },
  version: { header: 'VERSION', value: (s) => (s.rVersion ? `R ${s.rVersion}` : '-') },
  spot: { header: 'SPOT', value: (s) => (s.resources?.isCostSaving ? 'Yes' : 'No') },
  cost_limit: {
    header: 'COST LEFT',
    value: (s) =>
      s.execution?.computeCostLimit === -1 || !s.execution
        ? 'Unlimited'
        : dollars(Math.max(0, s.execution.computeCostLimit - (s.execution.computeCostSpent ?? 0))),
  },
  time_left: { header: 'TIME LEFT', value: (s) => timeLeft(s.execution?.autoShutdownAtDate) },
};

export const TABLE_COLUMN_NAMES = Object.keys(COLUMNS).sort();
const DEFAULT_COLUMNS = ['id', 'name', 'status', 'type', 'instance', 'cost', 'owner'];

function parseTableColumns(value: string | undefined): string[] {
  if (value === undefined) return DEFAULT_COLUMNS;
  const names = value
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !TABLE_COLUMN_NAMES.includes(n));
  if (!names.length || unknown.length) {
    throw new UsageError(
      `${unknown.length ? `Invalid column${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}` : 'No table column given'}; ` +
        `valid columns: ${TABLE_COLUMN_NAMES.join(', ')}.`,
    );
  }
  return names;
}

/** process_interactive_session_list's columns (the CSV without --all-fields). */
const CSV_COLUMNS = ['_id', 'name', 'status', 'interactiveSessionType', 'user', 'instanceType', 'totalCostInUsd'];

function sessionView(columns: string[]): ListView<InteractiveSession> {
  return {
    noun: 'interactive sessions',
    columns: columns.map((c) => COLUMNS[c]),
    async records(sessions, allFields) {
      if (allFields) return (await loadSdk()).toTable(sessions, [], true);
      return {
        columns: CSV_COLUMNS,
        rows: sessions.map((s) => ({
          _id: s._id,
          name: s.name,
          status: s.status,
          interactiveSessionType: typeName(s.interactiveSessionType),
          user: [s.user?.name, s.user?.surname].filter(Boolean).join(' '),
          instanceType: s.resources?.instanceType ?? '',
          totalCostInUsd: s.totalCostInUsd ?? 0,
        })),
      };
    },
  };
}

/**
 * One page of the workspace's interactive sessions (get_interactive_session_list), newest first,
 * with cloudos-cli's filters; a hint on stderr says when more pages exist.
 */
export async function sessionList(opts: SessionListOptions, ctx: CliContext): Promise<void> {
  const columns = parseTableColumns(opts.tableColumns);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const { sessions, paginationMetadata } = await withClient(conn, (client) =>
    client.getInteractiveSessionList(conn.workspaceId, {
      page: opts.page,
      limit: opts.limit,
      status: opts.filterStatus,
      ownerOnly: Boolean(opts.filterOnlyMine),
      includeArchived: Boolean(opts.archived),
    }),
  );
  if (!sessions.length && opts.filterStatus?.length) {
    ctx.stderr.write('No interactive sessions found in the requested status.\n');
    ctx.stderr.write('Session status flow: scheduled → initialising → setup → running → paused\n');
  }
  await emitList(sessions, sessionView(columns), opts, ctx);
  const { count, page, totalPages } = paginationMetadata;
  if (page < totalPages) {
    ctx.stderr.write(`Page ${page} of ${totalPages} (${count} interactive sessions); the next one: --page ${page + 1}\n`);
  }
}

function filterStatusOption(): Option {
  const option = new Option(
    '--filter-status <status>',
    'only sessions in this status (repeat, or separate with commas); paused is stopped, provisioning is initialising and setup',
  ).argParser(statusList);
  // Listed for help and shell completion; the parser also takes comma-separated lists.
  option.argChoices = [...FILTER_STATUSES];
  return option;
}

export function sessionListCommand(ctx: CliContext): Command {
  const cmd = new Command('list').description('list the interactive sessions of the workspace, newest first');
  addListOutputOptions(cmd);
  cmd
    .addOption(filterStatusOption())
    .addOption(new Option('--limit <n>', `sessions per page, at most ${MAX_LIMIT}`).argParser(limit).default(10))
    .addOption(new Option('--page <n>', 'page to show (1 is the newest)').argParser(integerIn(1, 1_000_000)).default(1))
    .option('--filter-only-mine', 'only your sessions')
    .addOption(new Option('--owner-only', 'alias of --filter-only-mine').hideHelp().implies({ filterOnlyMine: true }))
    .option('--archived', 'list the archived sessions instead')
    .option('--table-columns <names>', `columns of the table, comma-separated, from: ${TABLE_COLUMN_NAMES.join(', ')}`)
    .option('--all-fields', 'every field of the session documents (table and csv)');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: SessionListOptions) => sessionList(opts, ctx));
}
