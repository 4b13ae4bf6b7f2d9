/**
 * Turns to write at one SQLite database for the threads of one process (the API's and the
 * background thread's connections).
 *
 * SQLite's own busy handler sleeps and retries: it is not fair, and it blocks the waiting thread's
 * event loop. Here a thread takes its turn before it writes (a group of commits is one turn,
 * sqlite-group-commit.ts) and waits for it without blocking (Atomics.waitAsync).
 *
 * The turn goes to whoever takes it first when it is free; it is never held for a thread that is
 * not there yet. A thread that waits is not always at once where it waits: a busy API thread
 * finishes the requests in hand before its wait resolves, and a turn kept for it (as a first-come
 * queue would) would stand idle while the scheduler waits behind it. Among waiting threads the
 * higher slot goes first (slot 0 is the API's thread; the background thread, which runs the jobs'
 * steps, has slot 1), except that one that has waited STARVE_MS goes before those that have not,
 * so the API is never shut out. Slots are cleared by the owner of the buffer when a thread dies,
 * so a dead thread never holds a turn. Other processes on the same file meet SQLite's busy timeout.
 */

/** Threads that may share one buffer. */
const SLOTS = 4;
/** Layout (BigInt64): [0] changes (waited on), [1] the slot that has the turn (FREE: none), then per slot since when it wants one (0: it does not). */
const CHANGES = 0;
const OWNER = 1;
const wantSince = (slot: number) => 2 + slot;
const FREE = -1n;
/** A thread that has waited this long goes before the waiting threads that have not. */
const STARVE_MS = 100;
/** Waits end now and then: to see a waiter starve, and should a notification ever be missed. */
const WAIT_MS = 20;

type WaitAsync = (a: BigInt64Array, index: number, value: bigint, timeout?: number) => { async: boolean; value: Promise<string> | string };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

export interface ThreadTurnsHandle {
  buffer: SharedArrayBuffer;
  slot: number;
}

export function newThreadTurnsBuffer(): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer((2 + SLOTS) * BigInt64Array.BYTES_PER_ELEMENT);
  Atomics.store(new BigInt64Array(buffer), OWNER, FREE);
  return buffer;
}

function changed(a: BigInt64Array): void {
  Atomics.add(a, CHANGES, 1n);
  Atomics.notify(a, CHANGES);
}

/** Frees the slot of a thread that ended (whatever it held or waited for). */
export function clearThreadTurn({ buffer, slot }: ThreadTurnsHandle): void {
  const a = new BigInt64Array(buffer);
  Atomics.compareExchange(a, OWNER, BigInt(slot), FREE);
  Atomics.store(a, wantSince(slot), 0n);
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

  /** Resolves when this thread has the turn; call release() after. */
  async take(): Promise<void> {
    const { a, slot } = this;
    Atomics.store(a, wantSince(slot), BigInt(Date.now()) + 1n);
    if (this.tryTake()) return;
    // A pending waitAsync does not keep the event loop alive: a timer does, while this thread waits.
    const keepAlive = setInterval(() => undefined, 1000);
    try {
      for (;;) {
        const seen = Atomics.load(a, CHANGES);
        if (this.tryTake()) return;
        const wait = waitAsync(a, CHANGES, seen, WAIT_MS);
        if (wait.async) await wait.value;
      }
    } finally {
      clearInterval(keepAlive);
    }
  }

  release(): void {
    Atomics.compareExchange(this.a, OWNER, BigInt(this.slot), FREE);
    changed(this.a);
  }

  /** While this thread has its turn: whether another thread waits for one (so this turn should end soon). */
  othersWaiting(): boolean {
    for (let j = 0; j < SLOTS; j++) if (j !== this.slot && Atomics.load(this.a, wantSince(j)) !== 0n) return true;
    return false;
  }

  private tryTake(): boolean {
    const { a, slot } = this;
    if (Atomics.load(a, OWNER) !== FREE || this.outranked()) return false;
    if (Atomics.compareExchange(a, OWNER, FREE, BigInt(slot)) !== FREE) return false;
    Atomics.store(a, wantSince(slot), 0n);
    return true;
  }

  /** Whether another waiting thread goes first: one that starves (and this one does not, or waited longer), else a higher slot. */
  private outranked(): boolean {
    const { a, slot } = this;
    const now = BigInt(Date.now()) + 1n;
    const mine = Atomics.load(a, wantSince(slot));
    const starving = (since: bigint) => now - since >= BigInt(STARVE_MS);
    for (let j = 0; j < SLOTS; j++) {
      if (j === slot) continue;
      const theirs = Atomics.load(a, wantSince(j));
      if (theirs === 0n) continue;
      if (starving(theirs) !== starving(mine)) {
        if (starving(theirs)) return true;
        continue;
      }
      if (starving(mine) ? theirs < mine || (theirs === mine && j > slot) : j > slot) return true;
    }
    return false;
  }
}
