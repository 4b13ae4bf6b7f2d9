import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { resolveConnection } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { checkLinkPaths, linkAndReport, MountReport, sessionIdOption } from '../link/common.js';
import { addDatasetsOptions, checkedPath, locate, withDatasets, type DatasetsFlags } from './common.js';

export interface DatasetsLinkOptions extends DatasetsFlags {
  sessionId: string;
}

/**
 * cloudos-cli's `datasets link`: one folder, an s3:// URL or a File Explorer path of the project
 * (Data/x, Analyses Results/x), linked into a running session. A File Explorer item is looked at
 * first: a file or a virtual folder cannot be linked. What got mounted goes to stdout.
 */
export async function datasetsLink(path: string, opts: DatasetsLinkOptions, ctx: CliContext): Promise<void> {
  const session = opts.sessionId;
  const report = new MountReport(ctx, 'stdout');
  if (path.startsWith('s3://') || path.startsWith('az://')) {
    const { paths } = await checkLinkPaths([path], undefined);
    const name = path.replace(/\/+$/, '').split('/').pop() ?? '';
    if (!path.endsWith('/') && name.includes('.')) {
      ctx.stderr.write(
        'Unable to verify whether the S3 path is a folder. Proceeding with linking; however, if the operation fails, please confirm that you are linking a folder rather than a file.\n',
      );
    }
    const conn = resolveConnection(opts, ctx, { workspace: true });
    await withClient(conn, (client) => linkAndReport(client, conn, session, paths, report));
  } else {
    const parts = await checkedPath(path);
    if (!parts.length) throw new CliError('Give the folder to link, e.g. Data/folder or "Analyses Results/<job folder>".');
    await withDatasets(opts, ctx, async ({ client, conn, projectName, ds }) => {
      const { item } = await locate(ds, parts, (parent) => `Could not link folder. Could not list '${parent || '[project root]'}'.`);
      if (!('folderType' in item) || item.folderType === 'VirtualFolder') {
        throw new CliError('Linking files or virtual folders is not supported. Link the S3 parent folder instead.');
      }
      await linkAndReport(client, conn, session, [parts.join('/')], report, projectName);
    });
  }
  report.finish(`Linking ${path}`);
}

export function datasetsLinkCommand(ctx: CliContext): Command {
  const cmd = new Command('link')
    .description('link a folder (storage or File Explorer) into a running interactive session')
    .argument('<path>', "the folder: s3://bucket/prefix, or a File Explorer path such as Data/folder or 'Analyses Results/<job folder>'")
    .addOption(sessionIdOption().makeOptionMandatory());
  addDatasetsOptions(cmd);
  return cmd.action((path: string, opts: DatasetsLinkOptions) => datasetsLink(path, opts, ctx));
}
