import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JobDocument } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { addListOutputOptions, EXTENSION, type ListOutputFlags } from '../../output/format.js';
import { renderAligned, renderTabSeparated } from '../../output/text-table.js';
import { loadSdk } from '../../sdk.js';
import { at, ownerOf, scalar } from './fields.js';
import { jobUrl } from './follow.js';
import { jobConfigText, parameterText } from './parameter-text.js';
import { jobId } from '../../options/object-id.js';
import { colourOn } from '../../output/colour.js';

export interface JobDetailsOptions extends ConnectionFlags, ListOutputFlags {
  jobId: string;
  parameters?: boolean;
}

type Sdk = Awaited<ReturnType<typeof loadSdk>>;
type Value = string | number | boolean | null | undefined;

function storageUrl(location: unknown): Value {
  const bucket = scalar(at(location, 's3BucketName'));
  const prefix = scalar(at(location, 's3Prefix'));
  return bucket && prefix ? `s3://${bucket}/${prefix}` : undefined;
}

function revisionText(job: JobDocument): Value {
  const r = job.revision as Record<string, unknown> | undefined;
  if (!r) return undefined;
  const type = typeof r.revisionType === 'string' ? r.revisionType : undefined;
  if (type === 'digest')
    return [r.tag && `tag ${String(r.tag)}`, r.digest && `digest ${String(r.digest)}`].filter(Boolean).join(', ') || undefined;
  const named = type && type !== 'commit' && r[type] ? `${type} ${String(r[type])}` : undefined;
  return [named, r.commit && `commit ${String(r.commit)}`].filter(Boolean).join(', ') || undefined;
}

/** A bash array job's `arrayTasks`: "7 completed, 2 running, 1 queued, 0 failed of 10 (2 at a time)". */
function arrayTasksText(job: JobDocument): Value {
  const a = job.arrayTasks as Record<string, number> | undefined;
  if (!a) return undefined;
  return `${a.completed} completed, ${a.running} running, ${a.queued} queued, ${a.failed} failed of ${a.total} (${a.atOnce} at a time)`;
}

/** Runyard's `hpcCluster` key: "name (id)". */
function hpcClusterText(job: JobDocument): Value {
  const name = scalar(at(job, 'hpcCluster.name'));
  const id = scalar(at(job, 'hpcCluster.id'));
  return name && id ? `${String(name)} (${String(id)})` : undefined;
}

function dollars(v: unknown, decimals: number): Value {
  const n = Number(v);
  return v === null || v === undefined || !Number.isFinite(n) ? undefined : `$${n.toFixed(decimals)}`;
}

/** The fields `job details` shows, in order; the empty ones are left out. */
export function detailRows(job: JobDocument, platformUrl: string, sdk: Sdk): Array<[string, Value]> {
  // What the task is given: the used instance's size, or (older servers) the resource requirements.
  const vcpus = at(job, 'masterInstance.usedInstance.vcpus') ?? at(job, 'resourceRequirements.cpu');
  const memory = scalar(at(job, 'masterInstance.usedInstance.memoryGiB') ?? at(job, 'resourceRequirements.ram'));
  const instance = at(job, 'masterInstance.usedInstance.type') ?? at(job, 'masterInstance.requestedInstance.type');
  const queue = at(job, 'batch.jobQueue.label') ?? at(job, 'batch.jobQueue.name');
  const parameters = Array.isArray(job.parameters) ? (job.parameters as Record<string, unknown>[]) : [];
  const rows: Array<[string, Value]> = [
    ['Status', job.status],
    ['Name', job.name],
    ['ID', job._id],
    ['Link', jobUrl(platformUrl, job._id)],
    ['Project', scalar(at(job, 'project.name'))],
    ['Owner', ownerOf(job)],
    ['Pipeline', scalar(at(job, 'workflow.name'))],
    ['Job type', scalar(job.jobType)],
    ['Revision', revisionText(job)],
    ['Nextflow version', scalar(job.nextflowVersion)],
    ['Profile', scalar(job.profile)],
    ['Execution platform', scalar(job.executionPlatform)],
    ['Command', scalar(job.command)],
    ['Parameters', parameters.map(parameterText).join(' ') || undefined],
    ['Submit time', scalar(sdk.formatJobTime(job.createdAt))],
    ['Start time', scalar(sdk.formatJobTime(job.startTime))],
    ['End time', scalar(sdk.formatJobTime(job.endTime))],
    ['Run time', sdk.formatRunTime(job.startTime, job.endTime)],
    ['Cost', dollars(Number(job.computeCostSpent) / 100, 4)],
    ['Cost limit', dollars(job.computeCostLimit ?? at(job, 'execution.computeCostLimit'), 2)],
    ['Instance type', scalar(instance)],
    ['vCPUs', scalar(vcpus)],
    ['Memory', memory === undefined ? undefined : `${String(memory)} GiB`],
    // A Runyard server says when its executor gives the job less than it asked for.
    ['Resources', scalar(job.resourcesNote)],
    ['Storage', job.storageSizeInGb !== undefined && job.storageSizeInGb !== null ? `${String(job.storageSizeInGb)} GB` : undefined],
    ['Job queue', scalar(queue)],
    ['HPC cluster', hpcClusterText(job)],
    ['Array tasks', arrayTasksText(job)],
    ['Partition', scalar(at(job, 'hpcCluster.partition'))],
    ['Slurm job id', scalar(at(job, 'hpcCluster.slurmJobId'))],
    ['Resumable', scalar(job.resumable)],
    ['Results', storageUrl(job.results)],
    ['Logs', storageUrl(job.logs)],
    ['Exit code', scalar(job.exitCode)],
    ['Status message', scalar(job.statusMessage)],
  ];
  return rows.filter(([, v]) => v !== undefined && v !== null && v !== '');
}

/**
 * One job in detail: a two-column table (aligned on a terminal, tab-separated when piped), one CSV
 * row, or the whole job document as JSON; to `<basename>.<ext>` with --output-basename. With
 * --parameters the job's parameters are also written as a job-config file `<basename>.config`
 * (`<job id>_details.config` without --output-basename), which `job run --job-config` reads.
 */
export async function jobDetails(opts: JobDetailsOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const job = await withClient(conn, (client) => client.getJobStatus(opts.jobId, conn.workspaceId));
  const sdk = await loadSdk();
  const rows = detailRows(job, conn.platformUrl, sdk);
  const toFile = opts.outputBasename !== undefined;
  let out: string;
  if (opts.outputFormat === 'json') out = JSON.stringify(job, null, 2) + '\n';
  else if (opts.outputFormat === 'csv') {
    out = sdk.tableToCsv({ columns: rows.map(([k]) => k), rows: [Object.fromEntries(rows)] });
  } else {
    const table = { headers: ['FIELD', 'VALUE'], rows: rows.map(([k, v]) => [k, sdk.cellText(v)]) };
    out = toFile || ctx.stdout.isTTY ? renderAligned(table, { colour: !toFile && colourOn(ctx) }) : renderTabSeparated(table);
  }
  if (toFile) {
    const file = path.resolve(`${opts.outputBasename}.${EXTENSION[opts.outputFormat]}`);
    writeFileSync(file, out);
    ctx.stderr.write(`Wrote the details of job ${job._id} to ${file}\n`);
  } else ctx.stdout.write(out);
  if (opts.parameters) {
    const parameters = Array.isArray(job.parameters) ? (job.parameters as Record<string, unknown>[]) : [];
    const file = path.resolve(`${opts.outputBasename ?? `${job._id}_details`}.config`);
    writeFileSync(file, jobConfigText(parameters));
    ctx.stderr.write(`Wrote ${parameters.length} parameter${parameters.length === 1 ? '' : 's'} of job ${job._id} to ${file}\n`);
  }
}

export function jobDetailsCommand(ctx: CliContext): Command {
  const cmd = new Command('details').description('show a job in detail').requiredOption('--job-id <id>', 'id of the job', jobId);
  addListOutputOptions(cmd);
  cmd.option('--parameters', "also write the job's parameters as a job-config file (<basename>.config)");
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobDetailsOptions) => jobDetails(opts, ctx));
}
