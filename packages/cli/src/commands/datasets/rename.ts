import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { loadSdk } from '../../sdk.js';
import { addDatasetsOptions, checkedPath, failed, locate, shownParent, withDatasets, type DatasetsFlags } from './common.js';

/** Renames a file or folder of Data: its parent listed, the item found by name, one rename. */
export async function datasetsRename(source: string, newName: string, opts: DatasetsFlags, ctx: CliContext): Promise<void> {
  const parts = await checkedPath(source, {
    message: "SOURCE_PATH must start with 'Data/', pointing to a file or folder in that dataset.",
    inside: true,
  });
  try {
    (await loadSdk()).checkName(newName);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  await withDatasets(opts, ctx, async ({ ds }) => {
    const { item, parent, name } = await locate(ds, parts, (p) => `Could not list contents at '${shownParent(p)}'.`);
    if (!item._id) throw new CliError(`Item '${name}' is inside a storage folder and cannot be renamed.`);
    const kind = item.folderType !== undefined ? 'Folder' : 'File';
    ctx.stderr.write(`Renaming ${kind} '${name}' to '${newName}'...\n`);
    await ds.renameItem(item._id, newName, kind).catch((e) => failed('Rename operation failed.', e));
    ctx.stdout.write(`${kind} '${name}' renamed to '${newName}' in folder '${parent}'.\n`);
  });
}

export function datasetsRenameCommand(ctx: CliContext): Command {
  const cmd = new Command('rename')
    .description('rename a file or folder of Data')
    .argument('<source_path>', "the file or folder to rename, in 'Data' (e.g. Data/folderA/old_name.txt)")
    .argument('<new_name>', 'its new name');
  addDatasetsOptions(cmd);
  return cmd.action((source: string, newName: string, opts: DatasetsFlags) => datasetsRename(source, newName, opts, ctx));
}
