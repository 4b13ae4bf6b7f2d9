import type { StorageContent } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors/cli-error.js';
import { emitList } from '../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../output/format.js';
import type { ListView } from '../../output/list-view.js';
import { loadSdk } from '../../sdk.js';
import { formatBytes } from '../../output/bytes.js';

export interface StorageLsOptions extends ConnectionFlags, ListOutputFlags {}

/**
 * One level of a bucket or Azure container of the workspace (get_storage_contents): the URL
 * `s3://bucket/prefix` or `az://<account>.blob.core.windows.net/container/prefix`, checked first
 * (no `.` or `..` segment). A table of name, type, size, last modification and URL; csv or json too.
 */
export async function storageLs(url: string, opts: StorageLsOptions, ctx: CliContext): Promise<void> {
  const sdk = await loadSdk();
  let address;
  try {
    address = sdk.parseStorageAddress(url);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const contents = await withClient(conn, (client) =>
    client.getStorageContents(address.cloudName, address.cloudMeta, address.container, address.path, conn.workspaceId),
  );
  const base =
    address.cloudName === 'aws'
      ? `s3://${address.container}/`
      : `az://${sdk.azureHost(address.cloudMeta.storage!.storageAccount)}/${address.container}/`;
  const urlOf = (c: StorageContent) => `${base}${c.path}${c.isDir ? '/' : ''}`;
  const view: ListView<StorageContent> = {
    noun: 'items',
    columns: [
      { header: 'NAME', value: (c) => (c.isDir ? `${c.name}/` : c.name) },
      { header: 'TYPE', value: (c) => (c.isDir ? 'folder' : 'file') },
      { header: 'SIZE', value: (c) => (c.isDir ? '-' : formatBytes(Number(c.size ?? 0))) },
      { header: 'LAST MODIFIED', value: (c) => c.lastModified ?? '-' },
      { header: 'URL', value: urlOf },
    ],
    records: (items) => ({
      columns: ['name', 'path', 'isDir', 'size', 'lastModified', 'url'],
      rows: items.map((c) => ({ name: c.name, path: c.path, isDir: c.isDir, size: c.size, lastModified: c.lastModified, url: urlOf(c) })),
    }),
  };
  await emitList(contents, view, opts, ctx);
}

export function storageLsCommand(ctx: CliContext): Command {
  const cmd = new Command('ls')
    .description('list one level of a bucket or Azure container of the workspace')
    .argument('<url>', 's3://bucket/prefix or az://<account>.blob.core.windows.net/<container>/prefix');
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((url: string, opts: StorageLsOptions) => storageLs(url, opts, ctx));
}
