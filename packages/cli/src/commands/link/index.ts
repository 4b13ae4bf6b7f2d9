import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import { fromProfile } from '../../config/profile-default.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors/cli-error.js';
import { jobId } from '../../options/object-id.js';
import { checkLinkPaths, linkAndReport, MountReport, sessionIdOption } from './common.js';

export interface LinkOptions extends ConnectionFlags {
  sessionId: string;
  jobId?: string;
  projectName?: string;
  results?: boolean;
  workdir?: boolean;
  logs?: boolean;
  verbose?: boolean;
}

const JOB_FOLDERS = ['results', 'workdir', 'logs'] as const;

/**
 * cloudos-cli's `link`: folders (storage URLs and File Explorer paths, comma-separated) linked into
 * a session in one request, or a job's results, working directory and logs (all three unless some
 * are named). Each mount is waited for: what got mounted on stdout, the rest on stderr. Exit 1 when
 * a folder failed to mount, or nothing was linked; a mount not verified in time is a warning.
 */
export async function link(pathArg: string | undefined, opts: LinkOptions, ctx: CliContext): Promise<void> {
  if (!opts.jobId && !pathArg) throw new UsageError('Either --job-id or PATH argument must be provided.');
  if (opts.jobId && pathArg) throw new UsageError('Cannot use both --job-id and PATH argument. Please provide only one.');
  const chosen = JOB_FOLDERS.filter((f) => opts[f]);
  if (chosen.length && !opts.jobId) throw new UsageError('--results, --workdir, and --logs flags can only be used with --job-id.');
  const session = opts.sessionId;
  if (opts.jobId) {
    const job = opts.jobId;
    const conn = resolveConnection(opts, ctx, { workspace: true });
    const folders = chosen.length ? chosen : JOB_FOLDERS;
    ctx.stderr.write(`Linking folders from job ${job} to interactive session ${session}...\n`);
    const report = new MountReport(ctx, 'stdout');
    await withClient(conn, async (client) => {
      for (const folder of folders) {
        const options = { log: report.log };
        if (folder === 'results') await client.linkJobResults(job, conn.workspaceId, session, options);
        else if (folder === 'workdir') await client.linkJobWorkdir(job, conn.workspaceId, session, options);
        else await client.linkJobLogs(job, conn.workspaceId, session, options);
      }
    });
    report.finish(`Linking the folders of job ${job}`);
    return;
  }
  const given = pathArg!
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (!given.length) throw new UsageError('No valid paths provided.');
  const { paths, projectName } = await checkLinkPaths(
    given,
    opts.projectName?.trim() || undefined,
    fromProfile(ctx, opts.profile, 'projectName'),
  );
  const conn = resolveConnection(opts, ctx, { workspace: true });
  if (opts.verbose) ctx.stderr.write(`Paths: ${given.join(', ')}${projectName ? ` (File Explorer of project '${projectName}')` : ''}\n`);
  ctx.stderr.write(
    given.length === 1
      ? `Linking path to interactive session ${session}...\n`
      : `Linking ${given.length} paths to interactive session ${session}...\n`,
  );
  const report = new MountReport(ctx, 'stdout');
  await withClient(conn, (client) => linkAndReport(client, conn, session, paths, report, projectName));
  report.finish(`Linking ${given.join(', ')}`);
}

export function linkCommand(ctx: CliContext): Command {
  const cmd = new Command('link')
    .description("link folders (storage or File Explorer) or a job's folders into a running interactive session")
    .argument(
      '[path]',
      'folders to link, comma-separated: s3://bucket/prefix, or a File Explorer folder project/Data/x (Data/x with --project-name)',
    )
    .addOption(sessionIdOption().makeOptionMandatory())
    .option('--job-id <id>', "link this job's results, working directory and logs (or those named below)", jobId)
    .option('--project-name <name>', "the project of File Explorer paths given as Data/x (default: the profile's project_name)")
    .option('--results', "link the job's results folder (with --job-id)")
    .option('--workdir', "link the job's working directory (with --job-id)")
    .option('--logs', "link the job's logs folder (with --job-id)")
    .option('--verbose', 'print more about what is done');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((pathArg: string | undefined, opts: LinkOptions) => link(pathArg, opts, ctx));
}
