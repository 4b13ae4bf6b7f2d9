import type { Downloaded, DownloadOptions, StoredObject } from '@runyard/client';
import cliProgress from 'cli-progress';
import type { CliContext } from '../context.js';
import { formatBytes } from './bytes.js';

/**
 * What a download shows on stderr: on a terminal one progress bar over all the bytes (cli-progress),
 * redrawn as they arrive; otherwise one line per file when it is done. `report` says how it went.
 */
export function downloadProgress(ctx: CliContext): {
  options: DownloadOptions & { onListed(objects: StoredObject[]): void };
  done(results: Downloaded[]): void;
} {
  const tty = Boolean(ctx.stderr.isTTY);
  const bar = tty
    ? new cliProgress.SingleBar(
        {
          stream: ctx.stderr as NodeJS.WriteStream,
          format: '{bar} {percentage}% | {value} of {total} | {file}',
          hideCursor: true,
          formatValue: (v, _o, type) => (type === 'value' || type === 'total' ? formatBytes(Number(v)) : String(v)),
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const seen = new Map<string, number>();
  let base = 0;
  return {
    options: {
      onListed(objects) {
        bar?.start(
          objects.reduce((sum, o) => sum + o.size, 0),
          0,
          { file: '' },
        );
      },
      onProgress(object, received) {
        if (!bar) return;
        const before = seen.get(object.key) ?? 0;
        seen.set(object.key, received);
        base += received - before;
        bar.update(base, { file: object.key.split('/').pop() });
      },
    },
    done(results) {
      bar?.stop();
      if (!tty)
        for (const r of results)
          ctx.stderr.write(
            `${r.how === 'skipped' ? 'Skipped (already there)' : r.how === 'resumed' ? 'Resumed' : 'Downloaded'}: ${r.file} (${formatBytes(r.object.size)})\n`,
          );
      const total = results.reduce((sum, r) => sum + r.object.size, 0);
      const skipped = results.filter((r) => r.how === 'skipped').length;
      ctx.stderr.write(
        `${results.length} file${results.length === 1 ? '' : 's'}, ${formatBytes(total)}${skipped ? ` (${skipped} already there)` : ''}.\n`,
      );
    },
  };
}
