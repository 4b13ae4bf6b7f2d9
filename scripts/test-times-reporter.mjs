// A node:test reporter that writes, for each test file, the wall time from its first to its last
// top-level result and the sum of its top-level tests' durations, as one JSON line per file at the
// end. scripts/run-tests.mjs prints the slowest files from it, so the run's time can be spent well.
export default async function* fileTimes(source) {
  const files = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.nesting !== 0 || !event.data.file) continue;
    const now = Date.now();
    const ms = event.data.details?.duration_ms ?? 0;
    const entry = files.get(event.data.file) ?? { file: event.data.file, first: now - ms, last: now, testsMs: 0 };
    entry.first = Math.min(entry.first, now - ms);
    entry.last = now;
    entry.testsMs += ms;
    files.set(event.data.file, entry);
  }
  for (const entry of files.values()) {
    yield JSON.stringify({ file: entry.file, wallMs: entry.last - entry.first, testsMs: Math.round(entry.testsMs) }) + '\n';
  }
}
