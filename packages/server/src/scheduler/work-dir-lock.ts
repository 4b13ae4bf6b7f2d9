/**
 * One holder at a time per local work directory, in this process. On S3 and Azure a resumed job
 * works in its parent's local copy: the parent's clean-up (is anyone else active here? then
 * remove) and the child's pull into the same directory must not interleave, or the clean-up
 * deletes the copy the child just pulled and is running in.
 */
const held = new Map<string, Promise<void>>();

export async function withWorkDirLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const before = held.get(dir) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const chained = before.then(() => mine);
  held.set(dir, chained);
  await before;
  try {
    return await fn();
  } finally {
    release();
    if (held.get(dir) === chained) held.delete(dir);
  }
}
