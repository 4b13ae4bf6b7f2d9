import type { RunyardClient } from '@runyard/client';
import path from 'node:path';
import type { CliContext } from '../../context.js';
import { downloadProgress } from '../../output/download-progress.js';

/**
 * `--download DIR` of job results, workdir and logs: every file under the storage URL into DIR (its
 * paths below the folder kept), with progress on stderr; files already there whole are skipped,
 * a download that stopped is resumed. The directory is printed on stdout.
 */
export async function downloadJobFolder(
  client: RunyardClient,
  ctx: CliContext,
  workspaceId: string,
  url: string,
  dir: string,
): Promise<void> {
  const progress = downloadProgress(ctx);
  const target = path.resolve(dir);
  const results = await client.downloadFolder(workspaceId, url, target, progress.options);
  progress.done(results);
  ctx.stdout.write(`${target}\n`);
}
