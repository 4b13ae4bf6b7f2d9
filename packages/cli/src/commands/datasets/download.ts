import type { Datasets, Downloaded, ExplorerItem, StoredObject } from '@runyard/client';
import { Command } from 'commander';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { downloadProgress } from '../../output/download-progress.js';
import { loadSdk } from '../../sdk.js';
import { addDatasetsOptions, checkedPath, failed, withDatasets, type DatasetsFlags } from './common.js';

/** Folders deeper than this are not walked (the server refuses deeper trees anyway). */
const MAX_DEPTH = 64;

/** Where a File Explorer file (or a storage-listed one) is stored, and its size. */
function objectOf(item: ExplorerItem): StoredObject {
  const bucket = item.s3BucketName ?? item.blobContainerName;
  const key = item.s3ObjectKey ?? item.blobName ?? (item.fileType === 'S3File' ? item.s3Prefix : undefined);
  const size = typeof item.sizeInBytes === 'number' ? item.sizeInBytes : typeof item.size === 'number' ? item.size : undefined;
  if (!bucket || !key || size === undefined) throw new CliError(`"${item.name}" has no storage location to download from.`);
  return { bucket, key: String(key), size };
}

/** Every file in a folder (any kind: dataset, virtual, S3 or Azure folder), with its path below it. */
async function filesIn(
  ds: Datasets,
  folder: ExplorerItem,
  relative: string,
  depth = 0,
): Promise<Array<StoredObject & { relative: string }>> {
  if (depth > MAX_DEPTH) return [];
  const content = await ds.listFolder(folder);
  const out = content.files.map((f) => ({ ...objectOf(f), relative: `${relative}${f.name}` }));
  for (const sub of content.folders) out.push(...(await filesIn(ds, sub, `${relative}${sub.name}/`, depth + 1)));
  return out;
}

const isDirectory = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

/**
 * Copies a file or a folder of the File Explorer to the local disk: a file to DEST (a file name, or
 * into DEST when it is a directory; default: the current directory), a folder into DEST/<its name>
 * with its tree. Progress on stderr; files already there whole are skipped, stopped downloads resumed.
 */
export async function datasetsDownload(itemPath: string, dest: string | undefined, opts: DatasetsFlags, ctx: CliContext): Promise<void> {
  await checkedPath(itemPath);
  const { pathInside } = await loadSdk();
  await withDatasets(opts, ctx, async ({ client, conn, ds }) => {
    const { item } = await ds.findItem(itemPath).catch((e) => failed('Download failed.', e));
    const progress = downloadProgress(ctx);
    const results: Downloaded[] = [];
    let target: string;
    if (item.fileType) {
      const object = objectOf(item);
      const given = path.resolve(dest ?? '.');
      target = isDirectory(given) ? path.join(given, item.name) : given;
      progress.options.onListed([object]);
      results.push(await client.downloadObject(conn.workspaceId, object, target, progress.options));
    } else {
      target = path.join(path.resolve(dest ?? '.'), item.name);
      const files = await filesIn(ds, item, '');
      progress.options.onListed(files);
      for (const f of files)
        results.push(await client.downloadObject(conn.workspaceId, f, pathInside(target, f.relative), progress.options));
    }
    progress.done(results);
    ctx.stdout.write(`${target}\n`);
  });
}

export function datasetsDownloadCommand(ctx: CliContext): Command {
  const cmd = new Command('download')
    .description('copy a file or a folder (with its tree) of the File Explorer to the local disk')
    .argument('<path>', 'File Explorer path of a file or folder, e.g. Data/reads or "Analyses Results/run-1"')
    .argument('[dest]', 'local file or directory (default: the current directory)');
  addDatasetsOptions(cmd);
  return cmd.action((itemPath: string, dest: string | undefined, opts: DatasetsFlags) => datasetsDownload(itemPath, dest, opts, ctx));
}
