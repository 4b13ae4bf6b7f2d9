// Scratch directories of the benchmarks (data directories of the servers, homes, working
// directories), removed when the whole run ends, not as each benchmark ends. Why: on an ext4
// without a journal (this machine kind's), the kernel passes over recently deleted inodes when it
// allocates one (recently_deleted() in fs/ext4/ialloc.c: 60 s after the deletion, 360 s while
// the inode table's block is dirty), so the thousands one benchmark's clean-up deletes made every
// directory and file the next one creates several times slower (measured: a mkdir 85-185 us,
// 541 us after 6,000 deletions): a cost of the bench's clean-up charged to the side that creates
// files (Runyard's jobs), not to the baseline (xargs). BENCH_KEEP_SCRATCH=1 leaves them (for runs
// one after another).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made = [];

/** A new directory under the system's temporary directory, removed at the end of the run. */
export function scratchDir(prefix = 'runyard-bench-') {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every scratch directory made so far (at exit, unless BENCH_KEEP_SCRATCH=1). */
function removeScratchDirs() {
  if (process.env.BENCH_KEEP_SCRATCH === '1') return;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

process.on('exit', removeScratchDirs);
