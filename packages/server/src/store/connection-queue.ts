/**
 * Callers take turns at one connection, first come first served. The connection is handed
 * straight to the next caller (it is never free in between), so `held` says whether anyone has it.
 */
export class ConnectionQueue {
  private readonly waiters: Array<() => void> = [];
  private taken = false;

  get held(): boolean {
    return this.taken;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  take(): Promise<void> {
    if (!this.taken) {
      this.taken = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The holder is done: the next caller has it now, or nobody. */
  handOn(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.taken = false;
  }
}
