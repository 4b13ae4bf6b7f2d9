import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RelatedJob } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { emitList } from '../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../output/format.js';
import type { ListView } from '../../output/list-view.js';
import { jobUrl } from './follow.js';
import { jobId } from '../../options/object-id.js';

export interface JobRelatedOptions extends ConnectionFlags, ListOutputFlags {
  jobId: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

function submitTime(iso: string | undefined): string {
  const d = iso ? new Date(iso) : undefined;
  if (!d || Number.isNaN(d.getTime())) return iso || 'N/A';
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

function runTime(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return 'N/A';
  const s = Math.trunc(seconds);
  const [h, m] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60)];
  return h > 0 ? `${h}h ${m}m ${s % 60}s` : m > 0 ? `${m}m ${s % 60}s` : `${s % 60}s`;
}

const cost = (cents: number | null | undefined) =>
  cents === null || cents === undefined || !Number.isFinite(Number(cents)) ? 'N/A' : `$${(Number(cents) / 100).toFixed(4)}`;

const owner = (j: RelatedJob) => `${j.user_name ?? ''} ${j.user_surname ?? ''}`.trim() || 'N/A';

const RELATED_VIEW: ListView<RelatedJob> = {
  noun: 'related analyses',
  columns: [
    { header: 'STATUS', value: (j) => j.status ?? 'N/A' },
    { header: 'NAME', value: (j) => j.name ?? 'N/A' },
    { header: 'OWNER', value: owner },
    { header: 'ID', value: (j) => j._id },
    { header: 'SUBMIT TIME', value: (j) => submitTime(j.createdAt) },
    { header: 'RUN TIME', value: (j) => runTime(j.runTime) },
    { header: 'TOTAL COST', value: (j) => cost(j.computeCostSpent) },
  ],
  records: (jobs) => ({
    columns: ['_id', 'status', 'name', 'user_name', 'user_surname', 'createdAt', 'runTime', 'computeCostSpent'],
    rows: jobs.map((j) => ({ ...j })),
  }),
};

/** `dd/mm/yyyy` of an ISO time, as cloudos-cli shows a deletion date. */
function day(iso: string | undefined): string {
  const d = iso ? new Date(iso) : undefined;
  return d && !Number.isNaN(d.getTime()) ? `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}` : 'N/A';
}

/**
 * The jobs sharing this job's working directory (a table, csv, or with json the map cloudos-cli
 * writes to related_analyses.json). On stderr first: the job that made the working directory, or
 * who deleted it and when.
 */
export async function jobRelated(opts: JobRelatedOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  await withClient(conn, async (client) => {
    const job = await client.getJobStatus(opts.jobId, conn.workspaceId);
    const workDirectory = job.workDirectory as
      { folderId?: string; deletedBy?: { id?: string; name?: string }; deletionDate?: string } | null | undefined;
    if (!('workDirectory' in job)) {
      ctx.stderr.write("Bash jobs do not have 'Related Analyses' information.\n");
      return;
    }
    if (!workDirectory?.folderId) throw new CliError('The job does not have a working directory associated.');
    const related = await client.getRelatedJobs(conn.workspaceId, workDirectory.folderId);
    if (workDirectory.deletedBy?.id && workDirectory.deletedBy?.name) {
      ctx.stderr.write(
        `Intermediate results of this job were deleted by ${workDirectory.deletedBy.name} on ${day(workDirectory.deletionDate)}. ` +
          'Current job and all other jobs sharing the same working directory are not resumable anymore. You can restore intermediate data by cloning the job.\n',
      );
    } else {
      const parent = await client.getParentJob(conn.workspaceId, workDirectory.folderId);
      ctx.stderr.write(
        parent
          ? `Parent job link: ${jobUrl(conn.platformUrl, parent.id)} (${parent.id}${parent.name ? `, "${parent.name}", ${parent.status}` : ''})\n`
          : 'No parent job found\n',
      );
    }
    ctx.stderr.write(`Total related analyses found: ${Object.keys(related).length}\n`);
    if (opts.outputFormat !== 'json') return emitList(Object.values(related), RELATED_VIEW, opts, ctx);
    const text = JSON.stringify(related, null, 4) + '\n';
    if (opts.outputBasename === undefined) return void ctx.stdout.write(text);
    const file = path.resolve(`${opts.outputBasename}.json`);
    writeFileSync(file, text);
    ctx.stderr.write(`Wrote ${Object.keys(related).length} related analyses to ${file}\n`);
  });
}

export function jobRelatedCommand(ctx: CliContext): Command {
  const cmd = new Command('related')
    .description('list the jobs that share the working directory of a job')
    .requiredOption('--job-id <id>', 'id of the job', jobId);
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobRelatedOptions) => jobRelated(opts, ctx));
}
