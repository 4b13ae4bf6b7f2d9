import { Command, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { integerIn } from '../../options/integer.js';
import { jobId } from '../../options/object-id.js';
import { downloadJobFolder } from './download.js';
import { followLog } from './follow-log.js';
import { emitRecords } from '../../output/emit-record.js';
import { addOutputFormatOption, type OutputFormat } from '../../output/format.js';
import { addJobLinkOptions, checkJobLinkFlags, jobDataFailure, linkJobFolderInto, type JobLinkFlags } from './results.js';

export interface JobLogsOptions extends ConnectionFlags, JobLinkFlags {
  jobId: string;
  outputFormat: OutputFormat;
  follow?: boolean;
  tail?: number;
  download?: string;
}

/** The SDK names stdout.txt as a Nextflow run's; a bash or WDL job's stdout is the job's own output. */
const NEXTFLOW_STDOUT = 'Nextflow standard output';
const JOB_STDOUT = 'Job output (standard output)';

/**
 * The job's log files, one `<display name>: <url>` line each on stdout ("Nextflow standard output"
 * or, for a bash or WDL job, "Job output (standard output)", "Nextflow log", "Trace file", other
 * files by name), as cloudos-cli prints them; a name-to-URL object with json, name,url rows with csv.
 */
export async function jobLogs(opts: JobLogsOptions, ctx: CliContext): Promise<void> {
  checkJobLinkFlags(opts, ctx);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  if (opts.download) {
    const dir = opts.download;
    await withClient(conn, async (client) => {
      const url = await client.getJobLogsFolder(opts.jobId, conn.workspaceId).catch((e) => jobDataFailure(e, opts.jobId, 'logs'));
      await downloadJobFolder(client, ctx, conn.workspaceId, url, dir);
    });
    return;
  }
  if (opts.follow || opts.tail !== undefined) {
    await withClient(conn, (client) =>
      followLog(client, ctx, opts.jobId, conn.workspaceId, { tail: opts.tail, follow: Boolean(opts.follow) }),
    );
    return;
  }
  await withClient(conn, async (client) => {
    const { logs, nextflow } = await (async () => {
      const job = await client.getJobStatus(opts.jobId, conn.workspaceId);
      return { logs: await client.getJobLogs(opts.jobId, conn.workspaceId), nextflow: String(job.jobType ?? '').startsWith('nextflow') };
    })().catch((e) => jobDataFailure(e, opts.jobId, 'logs'));
    const entries = Object.entries(logs).map(([name, url]) => [!nextflow && name === NEXTFLOW_STDOUT ? JOB_STDOUT : name, url] as const);
    if (!entries.length) ctx.stderr.write(`Job ${opts.jobId} has no log files yet.\n`);
    await emitRecords(opts.outputFormat, ctx, {
      text: entries.map(([name, url]) => `${name}: ${url}\n`).join(''),
      json: Object.fromEntries(entries),
      columns: ['name', 'url'],
      records: entries.map(([name, url]) => ({ name, url })),
    });
    if (opts.link) {
      // The folder of the log files, as cloudos-cli links it: the parent of the first one.
      const first = Object.values(logs)[0];
      if (!first) throw new CliError(`Job ${opts.jobId} has no log files yet: no logs folder to link.`);
      await linkJobFolderInto(client, conn, ctx, opts, first.split('/').slice(0, -1).join('/'), 'logs folder');
    }
  });
}

export function jobLogsCommand(ctx: CliContext): Command {
  const cmd = new Command('logs')
    .description("print the URLs of the log files of a job; with --follow or --tail, the job's output itself")
    .requiredOption('--job-id <id>', 'id of the job', jobId)
    .option('-f, --follow', 'print the output as the job writes it, until it ends: exit 0 if it completed, 1 if it failed, 3 if aborted')
    .option('--download <dir>', 'copy the log files into this local directory (resumes, skips files already there)')
    .addOption(
      new Option('--tail <lines>', 'print the last lines of the output so far (with --follow: then follow)').argParser(
        integerIn(0, 1_000_000),
      ),
    );
  addJobLinkOptions(cmd, 'logs folder');
  cmd.options.find((o) => o.long === '--link')!.conflicts(['follow', 'tail']);
  addOutputFormatOption(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobLogsOptions) => jobLogs(opts, ctx));
}
