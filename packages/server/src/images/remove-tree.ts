import { existsSync, rmSync } from 'node:fs';
import { runTool } from './run-tool.js';

/**
 * Removes a tree made read-only (its folders must be writable again first). Neither step follows a
 * link: chmod -R skips the links it meets, and rm unlinks them.
 */
export async function removeTree(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  await runTool('chmod', ['-R', 'u+w', dir], { PATH: process.env.PATH });
  rmSync(dir, { recursive: true, force: true });
}
