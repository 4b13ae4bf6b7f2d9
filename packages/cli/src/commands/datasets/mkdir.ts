import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { loadSdk } from '../../sdk.js';
import { addDatasetsOptions, checkedPath, failed, withDatasets, type DatasetsFlags } from './common.js';

/**
 * Creates a virtual folder in Data, as cloudos-cli does: the parent of its parent listed, the parent
 * found there (a dataset or a folder), one create request.
 */
export async function datasetsMkdir(folderPath: string, opts: DatasetsFlags, ctx: CliContext): Promise<void> {
  const parts = await checkedPath(folderPath, { message: "NEW_FOLDER_PATH must start with 'Data'." });
  if (parts.length < 2) throw new UsageError('NEW_FOLDER_PATH must include at least a parent folder and the new folder name.');
  const folderName = parts[parts.length - 1];
  try {
    (await loadSdk()).checkName(folderName);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const parentPath = parts.slice(0, -1).join('/');
  const parentName = parts[parts.length - 2];
  const grandParent = parts.slice(0, -2).join('/');
  await withDatasets(opts, ctx, async ({ ds }) => {
    const contents = await ds.listFolderContent(grandParent).catch((e) => failed(`Could not list contents at '${grandParent}'.`, e));
    const parent = (contents.folders ?? []).find((f) => f.name === parentName);
    if (!parent?._id) throw new CliError(`Could not find folder '${parentName}' in '${grandParent}'.`);
    let parentKind: 'Dataset' | 'Folder';
    if (parent.folderType === true) parentKind = 'Dataset';
    else if (typeof parent.folderType === 'string') parentKind = 'Folder';
    else throw new CliError(`Unrecognized folderType for '${parentPath}'.`);
    ctx.stderr.write(`Creating folder '${folderName}' under '${parentPath}' (${parentKind})...\n`);
    await ds.createVirtualFolder(folderName, parent._id, parentKind).catch((e) => failed('Folder creation failed.', e));
    ctx.stdout.write(`Folder '${folderName}' created under '${parentPath}'\n`);
  });
}

export function datasetsMkdirCommand(ctx: CliContext): Command {
  const cmd = new Command('mkdir')
    .description('create a virtual folder in Data')
    .argument('<new_folder_path>', "the new folder's path with its name, in 'Data' (e.g. Data/folderA/new)");
  addDatasetsOptions(cmd);
  return cmd.action((folderPath: string, opts: DatasetsFlags) => datasetsMkdir(folderPath, opts, ctx));
}
