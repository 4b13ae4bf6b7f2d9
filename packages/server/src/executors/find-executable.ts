import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

export function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The absolute path of an executable on a PATH string, as a shell would find it, or null. */
export function findOnPath(name: string, searchPath: string): string | null {
  for (const dir of searchPath.split(':')) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const file = path.join(dir, name);
    if (isExecutableFile(file)) return file;
  }
  return null;
}
