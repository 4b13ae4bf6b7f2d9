import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';

const POLL_MS = 100;
const STALE_EMPTY_MS = 10_000;

/**
 * Runs `use` while holding `file` as a lock between the server processes on one data directory
 * (API and scheduler processes can scale out): created exclusively with the holder's pid, removed
 * after. A lock whose holder is no longer alive on this host is taken over, so a killed server
 * does not block pulls for ever. Pids mean nothing across hosts: the cache is per host for now.
 */
export async function withFileLock<T>(file: string, use: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, String(process.pid));
      } catch (error) {
        unlinkSync(file);
        throw error;
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!holderAlive(file)) {
        try {
          unlinkSync(file);
        } catch {
          // Another process took it over first.
        }
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  try {
    return await use();
  } finally {
    unlinkSync(file);
  }
}

function holderAlive(file: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(file, 'utf8'));
  } catch {
    return true; // Gone or being written: look again.
  }
  // An empty file is one whose holder has not written its pid yet, or died doing so (then it is old).
  if (!Number.isInteger(pid) || pid <= 0) return Date.now() - statSync(file, { throwIfNoEntry: false })!.mtimeMs < STALE_EMPTY_MS;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
