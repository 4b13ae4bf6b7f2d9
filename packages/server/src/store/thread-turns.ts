/**
 * Turns at one SQLite database for the threads of one process (the API's and the background
 * thread's connections), first come first served.
 *
 * SQLite's own busy handler sleeps and retries: it is not fair, and it blocks the waiting thread's
 * event loop. A thread that writes often (the API under load) could starve the other past the
 * busy timeout ("database is locked"). Here a thread takes its turn before using its connection
 * (a whole transaction is one turn) and waits for it without blocking (Atomics.waitAsync).
 *
 * Lamport's bakery over a SharedArrayBuffer: each thread has a slot (one connection, so at most one
 * request at a time: Kysely's driver queues a thread's own queries); the smallest number goes first.
 * Slots are cleared by the owner of the buffer when a thread dies, so a dead thread never holds a turn.
 * Other processes on the same file still meet SQLite's busy timeout.
 */

/** Threads that may share one buffer. */
const SLOTS = 4;
/** Layout (BigInt64): [0] changes (waited on), then per slot: choosing, number, waiting. */
const CHANGES = 0;
const choosing = (slot: number) => 1 + 3 * slot;
const numberOf = (slot: number) => 2 + 3 * slot;
const waiting = (slot: number) => 3 + 3 * slot;
/** A wake-up now and then, should a notification ever be missed. */
const WAIT_MS = 1000;

type WaitAsync = (a: BigInt64Array, index: number, value: bigint, timeout?: number) => { async: boolean; value: Promise<string> | string };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

export interface ThreadTurnsHandle {
  buffer: SharedArrayBuffer;
  slot: number;
}

export function newThreadTurnsBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer((1 + 3 * SLOTS) * BigInt64Array.BYTES_PER_ELEMENT);
}

/** A waiter counts itself before it reads CHANGES: it sees this change, or is woken (notify costs, so only then). */
function changed(a: BigInt64Array): void {
  Atomics.add(a, CHANGES, 1n);
  for (let j = 0; j < SLOTS; j++) {
    if (Atomics.load(a, waiting(j)) !== 0n) {
      Atomics.notify(a, CHANGES);
      return;
    }
  }
}

/** Frees the slot of a thread that ended (whatever it held or waited for). */
export function clearThreadTurn({ buffer, slot }: ThreadTurnsHandle): void {
  const a = new BigInt64Array(buffer);
  Atomics.store(a, numberOf(slot), 0n);
  Atomics.store(a, choosing(slot), 0n);
  Atomics.store(a, waiting(slot), 0n);
  changed(a);
}

export class ThreadTurns {
  private readonly a: BigInt64Array;
  private readonly slot: number;

  constructor({ buffer, slot }: ThreadTurnsHandle) {
    if (!Number.isInteger(slot) || slot < 0 || slot >= SLOTS) throw new Error(`No thread turn slot ${slot} (0..${SLOTS - 1}).`);
    this.a = new BigInt64Array(buffer);
    this.slot = slot;
  }

  /** Resolves when it is this thread's turn; call release() after. */
  async take(): Promise<void> {
    const { a, slot } = this;
    Atomics.store(a, choosing(slot), 1n);
    let max = 0n;
    for (let j = 0; j < SLOTS; j++) {
      const n = Atomics.load(a, numberOf(j));
      if (n > max) max = n;
    }
    Atomics.store(a, numberOf(slot), max + 1n);
    Atomics.store(a, choosing(slot), 0n);
    changed(a);
    if (this.isMyTurn()) return;
    // A pending waitAsync does not keep the event loop alive: a timer does, while this thread waits.
    const keepAlive = setInterval(() => undefined, WAIT_MS);
    Atomics.store(a, waiting(slot), 1n);
    try {
      for (;;) {
        const seen = Atomics.load(a, CHANGES);
        if (this.isMyTurn()) return;
        const wait = waitAsync(a, CHANGES, seen, WAIT_MS);
        if (wait.async) await wait.value;
      }
    } finally {
      Atomics.store(a, waiting(slot), 0n);
      clearInterval(keepAlive);
    }
  }

  release(): void {
    Atomics.store(this.a, numberOf(this.slot), 0n);
    changed(this.a);
  }

  private isMyTurn(): boolean {
    const { a, slot } = this;
    const mine = Atomics.load(a, numberOf(slot));
    for (let j = 0; j < SLOTS; j++) {
      if (j === slot) continue;
      if (Atomics.load(a, choosing(j)) !== 0n) return false;
      const theirs = Atomics.load(a, numberOf(j));
      if (theirs !== 0n && (theirs < mine || (theirs === mine && j < slot))) return false;
    }
    return true;
  }
}
