import type { Datasets, ExplorerItem, ParentKind } from '@runyard/client';
import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { addDatasetsOptions, checkedPath, failed, locate, withDatasets, type DatasetsFlags } from './common.js';

export interface DatasetsMvOptions extends DatasetsFlags {
  destinationProjectName?: string;
}

/** A move or copy destination: a dataset or a virtual folder; an S3 or Azure folder is refused as cloudos-cli refuses it. */
export function destinationKind(folder: ExplorerItem, verb: 'move' | 'copy', sourceName: string, destination: string): ParentKind {
  if (folder.folderType === true) return 'Dataset';
  if (folder.folderType === 'VirtualFolder' || folder.folderType === 'Folder') return 'Folder';
  if (folder.folderType === 'S3Folder' || folder.folderType === 'AzureBlobFolder') {
    throw new CliError(
      `Unable to ${verb} item '${sourceName}' to '${destination}'. The destination is ${folder.folderType === 'S3Folder' ? 'an S3' : 'an Azure'} folder, and only virtual folders can be selected as valid ${verb} destinations.`,
    );
  }
  throw new CliError(`Unrecognized folderType '${String(folder.folderType)}' for destination '${destination}'`);
}

/** The folder at a path of another project's (or the same) File Explorer. */
export async function destinationFolder(dest: Datasets, destination: string): Promise<ExplorerItem> {
  const parts = destination.replace(/^\/+|\/+$/g, '').split('/');
  const name = parts.pop()!;
  const content = await dest.listFolderContent(parts.join('/'));
  const match = (content.folders ?? []).find((f) => f.name === name);
  if (!match) throw new CliError(`Could not resolve destination folder '${destination}'`);
  return match;
}

/**
 * Moves a file or folder of Data into a dataset or virtual folder of Data (of --destination-project-name
 * if given), as cloudos-cli does: the source's parent listed, the destination's parent listed, one move.
 */
export async function datasetsMv(source: string, destination: string, opts: DatasetsMvOptions, ctx: CliContext): Promise<void> {
  await checkedPath(destination, { message: "Destination path must begin with 'Data/' or be 'Data'." });
  const sourceParts = await checkedPath(source, { message: "SOURCE_PATH must start with 'Data/' or be 'Data'." });
  await withDatasets(opts, ctx, async ({ client, conn, ds, projectName }) => {
    const destProject = opts.destinationProjectName ?? projectName;
    const dest = await client.datasets(conn.workspaceId, destProject);
    ctx.stderr.write('Checking source path\n');
    const { item, name } = await locate(ds, sourceParts, () => `Could not resolve source path '${source}'.`);
    if (!item._id) throw new CliError(`Item '${name}' is inside a storage folder and cannot be moved.`);
    const kind = item.folderType !== undefined ? 'Folder' : 'File';
    ctx.stderr.write('Checking destination path\n');
    const folder = await destinationFolder(dest, destination).catch((e) =>
      failed(`Could not resolve destination path '${destination}'.`, e),
    );
    const targetKind = destinationKind(folder, 'move', name, destination);
    ctx.stderr.write(`Moving ${kind} '${name}' to '${destination}' in project '${destProject}' ...\n`);
    await ds.moveFilesAndFolders(item._id, kind, folder._id!, targetKind).catch((e) => failed('Move operation failed.', e));
    ctx.stdout.write(`${kind} '${name}' moved to '${destination}' in project '${destProject}'.\n`);
  });
}

export function datasetsMvCommand(ctx: CliContext): Command {
  const cmd = new Command('mv')
    .description('move a file or folder of Data into a dataset or virtual folder')
    .argument('<source_path>', "the file or folder to move, in 'Data' (e.g. Data/folderA/file.txt)")
    .argument('<destination_path>', "the folder to move it into, in 'Data' (e.g. Data/folderB)")
    .option('--destination-project-name <name>', 'the project of the destination (default: the same project)');
  addDatasetsOptions(cmd);
  return cmd.action((source: string, destination: string, opts: DatasetsMvOptions) => datasetsMv(source, destination, opts, ctx));
}
