import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { loadSdk } from '../../sdk.js';
import { addDatasetsOptions, checkedPath, failed, locate, shownParent, withDatasets, type DatasetsFlags } from './common.js';

export interface DatasetsRmOptions extends DatasetsFlags {
  force?: boolean;
}

/**
 * Deletes a file or folder of Data: its parent listed, the item found by name, one delete. Items
 * inside a storage folder (no id) are refused; so are items Runyard manages unless --force.
 */
export async function datasetsRm(target: string, opts: DatasetsRmOptions, ctx: CliContext): Promise<void> {
  const parts = await checkedPath(target, { message: "TARGET_PATH must start with 'Data/', pointing to a file or folder.", inside: true });
  const parent = parts.slice(0, -1).join('/');
  const shown = parent || '[root]';
  const sdk = await loadSdk();
  await withDatasets(opts, ctx, async ({ ds }) => {
    const { item, name } = await locate(ds, parts, (p) => `Could not list contents at '${shownParent(p)}'.`);
    const kind = item.folderType !== undefined ? 'Folder' : 'File';
    const managed = item.isManagedByLifebit === true;
    try {
      if (item._id && (!managed || opts.force)) ctx.stderr.write(`Removing ${kind} '${name}' from '${shown}'...\n`);
      await ds.deleteItem(item, { force: Boolean(opts.force) });
    } catch (e) {
      if (e instanceof sdk.RunyardValueError) throw new CliError(e.message);
      await failed('Remove operation failed.', e);
    }
    if (managed) ctx.stdout.write(`${kind} '${name}' was permanently deleted from '${shown}'.\n`);
    else if (kind === 'Folder' && opts.force) {
      // A folder that is not managed itself may hold uploads (the server asks for force then): those went with it.
      ctx.stdout.write(`${kind} '${name}' was removed from '${shown}'.\n`);
      ctx.stderr.write('Files uploaded into it were deleted from storage; the rest is still available on your Cloud Provider.\n');
    } else {
      ctx.stdout.write(`${kind} '${name}' was removed from '${shown}'.\n`);
      ctx.stderr.write('This item will still be available on your Cloud Provider.\n');
    }
  });
}

export function datasetsRmCommand(ctx: CliContext): Command {
  const cmd = new Command('rm')
    .description('delete a file or folder of Data')
    .argument('<target_path>', "the file or folder to delete, in 'Data' (e.g. Data/folderA/file.txt)")
    .option('--force', 'also delete items Runyard manages (their data is deleted from storage too)');
  addDatasetsOptions(cmd);
  return cmd.action((target: string, opts: DatasetsRmOptions) => datasetsRm(target, opts, ctx));
}
