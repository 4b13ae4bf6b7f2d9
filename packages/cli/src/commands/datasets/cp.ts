import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { addDatasetsOptions, checkedPath, failed, shownParent, withDatasets, type DatasetsFlags } from './common.js';

export interface DatasetsCpOptions extends DatasetsFlags {
  destinationProjectName?: string;
}

const DATASET_KINDS = ['Data', 'Cohorts', 'AnalysesResults'];

/**
 * Copies a file or folder (virtual, S3 or Azure) from anywhere in the project into a dataset or
 * virtual folder of Data (of --destination-project-name if given), as cloudos-cli does: the source's
 * parent and the destination's parent listed, one copy request of the source's type.
 */
export async function datasetsCp(source: string, destination: string, opts: DatasetsCpOptions, ctx: CliContext): Promise<void> {
  const destParts = await checkedPath(destination, { message: "DESTINATION_PATH must start with 'Data/'." });
  const sourceParts = await checkedPath(source);
  if (!sourceParts.length) throw new CliError('SOURCE_PATH is empty.');
  await withDatasets(opts, ctx, async ({ client, conn, ds, projectName }) => {
    const destProject = opts.destinationProjectName ?? projectName;
    const dest = await client.datasets(conn.workspaceId, destProject);
    const sourceParent = sourceParts.slice(0, -1).join('/');
    const sourceName = sourceParts[sourceParts.length - 1];
    const destName = destParts[destParts.length - 1];
    const [sourceContent, destContent] = await Promise.resolve()
      .then(async () => [await ds.listFolderContent(sourceParent), await dest.listFolderContent(destParts.slice(0, -1).join('/'))])
      .catch((e) => failed('Could not access paths.', e));
    const item = [...(sourceContent.files ?? []), ...(sourceContent.folders ?? [])].find((i) => i.name === sourceName);
    if (!item) throw new CliError(`Item '${sourceName}' not found in '${shownParent(sourceParent)}'`);
    const folder = (destContent.folders ?? []).find((f) => f.name === destName);
    if (!folder?._id) throw new CliError(`Destination folder '${destination}' not found.`);
    const type = item.fileType
      ? 'file'
      : item.folderType === 'VirtualFolder'
        ? 'virtual folder'
        : item.folderType === 'S3Folder'
          ? 's3 folder'
          : item.folderType === 'AzureBlobFolder'
            ? 'azure folder'
            : undefined;
    if (!type) throw new CliError('Copy operation failed. Could not determine item type.');
    if (folder.folderType === 'S3Folder' || folder.folderType === 'AzureBlobFolder') {
      throw new CliError(
        `Copy operation failed. Unable to copy item '${sourceName}' to '${destination}'. The destination is ${folder.folderType === 'S3Folder' ? 'an S3' : 'an Azure'} folder, and only virtual folders can be selected as valid copy destinations.`,
      );
    }
    const kind = folder.folderType === true && DATASET_KINDS.includes(String(folder.kind)) ? 'Dataset' : 'Folder';
    ctx.stderr.write(`Copying ${type} '${sourceName}' to '${destination}'...\n`);
    await ds.copyItem(item, folder._id, kind).catch((e) => failed('Copy operation failed.', e));
    ctx.stdout.write('Item copied successfully.\n');
  });
}

export function datasetsCpCommand(ctx: CliContext): Command {
  const cmd = new Command('cp')
    .description('copy a file or folder (virtual, S3 or Azure) into a dataset or virtual folder of Data')
    .argument('<source_path>', 'the file or folder to copy (e.g. "AnalysesResults/<job>/results/plot.png")')
    .argument('<destination_path>', "the folder to copy it into, in 'Data' (e.g. Data/plots)")
    .option('--destination-project-name <name>', 'the project of the destination (default: the same project)');
  addDatasetsOptions(cmd);
  return cmd.action((source: string, destination: string, opts: DatasetsCpOptions) => datasetsCp(source, destination, opts, ctx));
}
