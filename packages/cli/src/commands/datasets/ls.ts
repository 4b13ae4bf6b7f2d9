import type { ExplorerItem } from '@runyard/client';
import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { emitList } from '../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../output/format.js';
import type { ListView } from '../../output/list-view.js';
import { addDatasetsOptions, checkedPath, failed, withDatasets, type DatasetsFlags } from './common.js';
import { colourOn } from '../../output/colour.js';
import { formatBytes } from '../../output/bytes.js';

export interface DatasetsLsOptions extends DatasetsFlags, ListOutputFlags {
  details?: boolean;
}

const isFolderItem = (i: ExplorerItem) => i.folderType !== undefined || i.isDir === true;

/** The type cloudos-cli shows: the folder's type, or whether a file is one Runyard manages. */
function typeOf(i: ExplorerItem): string {
  if (isFolderItem(i)) {
    return { VirtualFolder: 'virtual folder', S3Folder: 's3 folder', AzureBlobFolder: 'azure folder' }[String(i.folderType)] ?? 'folder';
  }
  return i.isManagedByLifebit ? 'file (user uploaded)' : 'file (virtual copy)';
}

function ownerOf(i: ExplorerItem): string {
  const u = i.user && typeof i.user === 'object' ? i.user : {};
  return [u.name?.trim(), u.surname?.trim()].filter(Boolean).join(' ') || '-';
}

const rawSize = (i: ExplorerItem): number | undefined =>
  typeof i.sizeInBytes === 'number' ? i.sizeInBytes : typeof i.size === 'number' ? i.size : undefined;

const sizeOf = (i: ExplorerItem) => {
  const n = rawSize(i);
  return isFolderItem(i) || n === undefined ? '-' : formatBytes(n);
};

/** `s3://bucket/key` or `az://<account>.blob.core.windows.net/container/key` of an item; `-` for a virtual one. */
export function storagePathOf(i: ExplorerItem): string {
  if (i.fileType === 'S3File' || i.folderType === 'S3Folder') {
    const key = i.s3ObjectKey || i.s3Prefix;
    return i.s3BucketName && key ? `s3://${i.s3BucketName}/${key}` : '-';
  }
  if (i.fileType === 'AzureBlobFile' || i.folderType === 'AzureBlobFolder') {
    const key = i.fileType === 'AzureBlobFile' ? i.blobName : i.blobPrefix;
    return i.blobStorageAccountName && i.blobContainerName && key
      ? `az://${i.blobStorageAccountName}.blob.core.windows.net/${i.blobContainerName}/${key}`
      : '-';
  }
  return '-';
}

const updatedOf = (i: ExplorerItem) => String(i.updatedAt || i.lastModified || '-');

function view(details: boolean): ListView<ExplorerItem> {
  const detailed = [
    { header: 'TYPE', value: typeOf },
    { header: 'OWNER', value: ownerOf },
    { header: 'SIZE', value: sizeOf },
    { header: 'LAST UPDATED', value: updatedOf },
    { header: 'VIRTUAL NAME', value: (i: ExplorerItem) => i.name },
    { header: 'STORAGE PATH', value: storagePathOf },
  ];
  return {
    noun: 'items',
    columns: details ? detailed : [{ header: 'NAME', value: (i) => i.name }],
    records: (items) =>
      details
        ? {
            columns: ['Type', 'Owner', 'Size', 'Size (bytes)', 'Last Updated', 'Virtual Name', 'Storage Path'],
            rows: items.map((i) => ({
              Type: typeOf(i),
              Owner: ownerOf(i),
              Size: sizeOf(i),
              'Size (bytes)': rawSize(i) ?? '',
              'Last Updated': updatedOf(i),
              'Virtual Name': i.name,
              'Storage Path': storagePathOf(i),
            })),
          }
        : { columns: ['Name', 'Storage Path'], rows: items.map((i) => ({ Name: i.name, 'Storage Path': storagePathOf(i) })) },
  };
}

/**
 * What is at PATH in the project's File Explorer (the datasets without PATH), files then folders as
 * cloudos-cli lists them: names one per line (folders in blue on a terminal), or with --details a
 * table of type, owner, size, last update, name and storage path; csv or json too.
 */
export async function datasetsLs(pathArg: string | undefined, opts: DatasetsLsOptions, ctx: CliContext): Promise<void> {
  await checkedPath(pathArg ?? '');
  await withDatasets(opts, ctx, async ({ ds, projectName }) => {
    const content = await ds.listFolderContent(pathArg).catch((e) => failed(`Failed to list files for project '${projectName}'.`, e));
    const raw = content as { contents?: ExplorerItem[]; datasets?: ExplorerItem[] };
    let items: ExplorerItem[] = raw.contents?.length ? raw.contents : (raw.datasets ?? []);
    if (!items.length) items = [...(content.files ?? []), ...(content.folders ?? [])];
    if (opts.details || opts.outputFormat !== 'table' || opts.outputBasename !== undefined)
      return emitList(items, view(Boolean(opts.details)), opts, ctx);
    const colour = colourOn(ctx);
    for (const i of items) ctx.stdout.write(colour && isFolderItem(i) ? `\x1b[34;4m${i.name}\x1b[0m\n` : `${i.name}\n`);
  });
}

export function datasetsLsCommand(ctx: CliContext): Command {
  const cmd = new Command('ls')
    .description('list what is at a path of the File Explorer (the datasets without a path)')
    .argument('[path]', 'a path in the project, e.g. Data/folder or "Analyses Results/<job>"')
    .option('--details', 'type, owner, size, last update and storage path of each item');
  addListOutputOptions(cmd);
  addDatasetsOptions(cmd);
  return cmd.action((pathArg: string | undefined, opts: DatasetsLsOptions) => datasetsLs(pathArg, opts, ctx));
}
