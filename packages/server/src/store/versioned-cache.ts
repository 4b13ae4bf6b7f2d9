/**
 * Values computed from the database, each kept with the database's version when its reads began
 * (Store.dataVersion) and given back only while that version is still the current one: any
 * commit to the database, by any connection, thread or process, makes every entry stale. The
 * least recently used entries go first past `maxEntries` or `maxWeight`.
 */
export class VersionedCache<V> {
  private readonly entries = new Map<string, { version: number; value: V; weight: number }>();
  private weight = 0;

  constructor(private readonly limits: { maxEntries: number; maxWeight?: number; weigh?: (value: V) => number }) {}

  /** The value kept for key, if it was computed at this version. */
  get(key: string, version: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.remove(key, entry);
    if (entry.version !== version) return undefined;
    this.entries.set(key, entry); // now the most recently used
    this.weight += entry.weight;
    return entry.value;
  }

  /** version: read before the reads that computed value began (a commit after that makes it stale at once). */
  set(key: string, value: V, version: number): void {
    const weight = this.limits.weigh?.(value) ?? 0;
    const maxWeight = this.limits.maxWeight ?? Infinity;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    if (weight > maxWeight) return;
    this.entries.set(key, { version, value, weight });
    this.weight += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.weight <= maxWeight) break;
      this.remove(oldest, entry);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string, entry: { weight: number }): void {
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}
