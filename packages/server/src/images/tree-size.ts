import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The bytes a tree takes on disk (allocated blocks, as `du` counts them), every file hard-linked
 * within it counted once. Links are not followed (lstat): a link counts as itself. A folder that
 * cannot be read adds only its own size.
 */
export function treeBytes(root: string): number {
  const seen = new Set<string>();
  let total = 0;
  const pending = [root];
  while (pending.length) {
    const entry = pending.pop()!;
    let stat;
    try {
      stat = lstatSync(entry, { bigint: false });
    } catch {
      continue;
    }
    if (stat.nlink > 1 && !stat.isDirectory()) {
      const id = `${stat.dev}:${stat.ino}`;
      if (seen.has(id)) continue;
      seen.add(id);
    }
    total += stat.blocks * 512;
    if (!stat.isDirectory()) continue;
    try {
      for (const name of readdirSync(entry)) pending.push(path.join(entry, name));
    } catch {
      // Unreadable: its own blocks are counted, its entries are not.
    }
  }
  return total;
}
