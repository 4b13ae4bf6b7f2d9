import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { lstatBeneath, removeBeneath } from '../storage/beneath.js';
import { pullDir, pushDir } from '../storage/blob-sync.js';
import type { BlobStore } from '../storage/blob-store.js';

/**
 * A session's home between its runs: while it runs, a working copy on the server's machine
 * (`<dataDir>/sessions/<id>/home`); a pause with uploadOnClose saves it to the workspace's store
 * (`<bucket>/<workspace>/interactive-sessions/<id>/home`), and the next run starts from what was
 * saved last. Regular files are saved (links, such as `mounts`, and sockets are not). The session
 * writes its home: it is looked at and removed from its parent's handle (the server's session
 * directory), never following a link it planted.
 */

/** Saves the home: its files are uploaded (unchanged ones skipped), and saved files it no longer has are removed. */
export async function saveHome(blobs: BlobStore, home: string, bucket: string, prefix: string): Promise<{ skipped: string[] }> {
  const { skipped } = await pushDir(blobs, home, bucket, prefix);
  let cursor: string | undefined;
  const gone: string[] = [];
  do {
    const page = await blobs.list(bucket, prefix, { limit: 1000, ...(cursor && { cursor }) });
    for (const entry of page.entries) {
      if (entry.isDir) continue;
      const rel = entry.key.slice(prefix.length).replace(/^\/+/, '');
      // A path through a link (or a name beneath.ts refuses) has no regular file of the home's there.
      const local = await lstatBeneath(home, rel).catch(() => null);
      if (!local?.isFile()) gone.push(entry.key);
    }
    cursor = page.cursor;
  } while (cursor);
  for (const key of gone) await blobs.delete(bucket, key);
  return { skipped };
}

/** Makes the home of a new run: empty, or what was saved last. */
export async function restoreHome(blobs: BlobStore, home: string, bucket: string, prefix: string, saved: boolean): Promise<void> {
  await removeBeneath(path.dirname(home), path.basename(home));
  await mkdir(home, { recursive: true, mode: 0o700 });
  if (saved) await pullDir(blobs, bucket, prefix, home);
}
