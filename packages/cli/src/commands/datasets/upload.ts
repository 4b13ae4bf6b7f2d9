import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors/cli-error.js';
import { loadSdk } from '../../sdk.js';
import { addDatasetsOptions, checkedPath, failed, withDatasets, type DatasetsFlags } from './common.js';
import { formatBytes } from '../../output/bytes.js';

export interface DatasetsUploadOptions extends DatasetsFlags {
  name?: string;
}

/**
 * Uploads a local file into Data or a virtual folder inside it (streamed, never read whole), named as
 * the local file unless --name is given; jobs can then take it as an input by its path. The new
 * file's id on stdout.
 */
export async function datasetsUpload(localFile: string, destination: string, opts: DatasetsUploadOptions, ctx: CliContext): Promise<void> {
  if (!existsSync(localFile) || !statSync(localFile).isFile()) throw new UsageError(`The file "${localFile}" does not exist.`);
  await checkedPath(destination, { message: "DEST_PATH must start with 'Data/' or be 'Data'." });
  const name = opts.name ?? path.basename(localFile);
  try {
    (await loadSdk()).checkName(name);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  await withDatasets(opts, ctx, async ({ ds, projectName }) => {
    ctx.stderr.write(`Uploading '${localFile}' to '${destination}' in project '${projectName}'...\n`);
    const file = await ds.uploadFile(localFile, destination, { name }).catch((e) => failed('Upload failed.', e));
    ctx.stdout.write(`${file._id}\n`);
    ctx.stderr.write(`File '${file.name}' (${formatBytes(file.sizeInBytes)}) uploaded to '${destination}'.\n`);
  });
}

export function datasetsUploadCommand(ctx: CliContext): Command {
  const cmd = new Command('upload')
    .description('upload a local file into Data (or a virtual folder in it)')
    .argument('<local_file>', 'the file to upload')
    .argument('<dest_path>', "the folder to put it in: 'Data' or a virtual folder inside it (e.g. Data/inputs)")
    .option('--name <name>', 'the name of the file in the File Explorer (default: the local file name)');
  addDatasetsOptions(cmd);
  return cmd.action((localFile: string, destination: string, opts: DatasetsUploadOptions) =>
    datasetsUpload(localFile, destination, opts, ctx),
  );
}
