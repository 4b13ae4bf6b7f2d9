import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { withFileLock } from './file-lock.js';

/**
 * A lock between the server processes (and threads) on one cache, through a lock file
 * (withFileLock), whose holders in this process also take turns in a chain: the file lock polls,
 * and one process would otherwise wait for itself a poll at a time.
 */
export class SharedLock {
  private turn: Promise<unknown> = Promise.resolve();
  constructor(private readonly file: string) {}

  run<T>(use: () => Promise<T>): Promise<T> {
    const mine = this.turn.then(() => {
      mkdirSync(path.dirname(this.file), { recursive: true });
      return withFileLock(this.file, use);
    });
    this.turn = mine.catch(() => {});
    return mine;
  }
}
