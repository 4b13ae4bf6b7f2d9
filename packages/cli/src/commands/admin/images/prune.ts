import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { UsageError } from '../../../errors/cli-error.js';
import { formatBytes } from '../../../output/bytes.js';
import { cacheSummary } from './list.js';

export interface ImagesPruneOptions extends ConnectionFlags {
  all?: boolean;
  digest?: string;
}

/** Removes unused cached images and prints the digest of each removed; the cache after it on stderr. */
export async function imagesPrune(opts: ImagesPruneOptions, ctx: CliContext): Promise<void> {
  if (opts.all && opts.digest) throw new UsageError('Give --all or --digest, not both.');
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const body = opts.digest ? { digest: opts.digest } : opts.all ? { all: true } : {};
  const result = await withClient(conn, (c) => c.admin.pruneImages(body));
  for (const image of result.removed) ctx.stdout.write(`${image.digest}\n`);
  const freed = result.removed.reduce((sum, i) => sum + i.sizeBytes, 0);
  ctx.stderr.write(`Removed ${result.removed.length} image(s), ${formatBytes(freed)}; ${cacheSummary(result)}\n`);
}

export function imagesPruneCommand(ctx: CliContext): Command {
  const cmd = new Command('prune')
    .description(
      'remove cached images no job uses: by default the least recently used beyond the cache limit; --all: every unused one; --digest: that one',
    )
    .option('--all', 'remove every image no job uses now')
    .option('--digest <digest>', 'remove this image (sha256:...); refused while a job uses it');
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: ImagesPruneOptions) => imagesPrune(opts, ctx));
}
