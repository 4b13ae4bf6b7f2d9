import type { CachedImage } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { formatBytes } from '../../../output/bytes.js';
import { emitList } from '../../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../../output/format.js';
import type { ListView } from '../../../output/list-view.js';
import { recordsOf } from '../../../output/records.js';

export type ImagesListOptions = ConnectionFlags & ListOutputFlags;

export const IMAGES_VIEW: ListView<CachedImage> = {
  noun: 'cached images',
  columns: [
    { header: 'DIGEST', value: (i) => i.digest },
    { header: 'REFERENCES', value: (i) => i.references.join(',') },
    { header: 'SIZE', value: (i) => formatBytes(i.sizeBytes) },
    { header: 'JOBS', value: (i) => i.jobs },
    { header: 'PULLED', value: (i) => i.pulledAt },
    { header: 'LAST USED', value: (i) => i.lastUsedAt },
  ],
  records: recordsOf<CachedImage>(['digest', 'references', 'sizeBytes', 'jobs', 'pulledAt', 'lastUsedAt']),
};

/** The image cache, least recently used first (the order eviction takes), and on stderr its total against its limit. */
export async function imagesList(opts: ImagesListOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const listing = await withClient(conn, (c) => c.admin.listImages());
  await emitList(listing.images, IMAGES_VIEW, opts, ctx);
  ctx.stderr.write(`${cacheSummary(listing)}\n`);
}

export function cacheSummary(c: { images: unknown[]; totalBytes: number; limitBytes: number }): string {
  return `${c.images.length} image(s) in the cache, ${formatBytes(c.totalBytes)} of its limit ${formatBytes(c.limitBytes)}`;
}

export function imagesListCommand(ctx: CliContext): Command {
  const cmd = new Command('list').description(
    'list the image cache of container jobs: digest, references, size, the jobs using each now, when pulled and last used',
  );
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: ImagesListOptions) => imagesList(opts, ctx));
}
