import path from 'node:path';
import { ConnectionQueue } from './connection-queue.js';

/**
 * Turns to write for the connections of this thread to one SQLite file (tests and tools open
 * several). A batch holds the write lock across turns of the event loop (sqlite-group-commit.ts):
 * a second connection of the same thread that began a transaction meanwhile would block the thread
 * in SQLite's busy handler, so the first could never commit. Here it waits without blocking.
 */
const byFile = new Map<string, { queue: ConnectionQueue; users: number }>();

export interface WriterTurn {
  take(): Promise<void>;
  /** While this connection has its turn: whether another connection of this thread waits for one. */
  othersWaiting(): boolean;
  release(): void;
  /** This connection is closed: it no longer shares the file's queue. */
  close(): void;
}

export function sameThreadWriters(file: string): WriterTurn | undefined {
  if (!file || file === ':memory:') return undefined;
  const key = path.resolve(file);
  let entry = byFile.get(key);
  if (!entry) byFile.set(key, (entry = { queue: new ConnectionQueue(), users: 0 }));
  entry.users++;
  const { queue } = entry;
  let closed = false;
  return {
    take: () => queue.take(),
    othersWaiting: () => queue.waiting > 0,
    release: () => queue.handOn(),
    close: () => {
      if (closed) return;
      closed = true;
      if (--entry.users === 0 && byFile.get(key) === entry) byFile.delete(key);
    },
  };
}
