// Runs the benchmarks (npm run bench, after a build). Arguments narrow the run: `node bench/run.mjs b1`.
// Each benchmark measures Runyard and its baseline in the same run and prints
// `name: value unit (baseline: value unit, ratio R)` (see ../shared/design/performance.md).
import * as b1 from './b1-projects.mjs';

const BENCHMARKS = { b1 };

const wanted = process.argv.slice(2);
for (const [id, bench] of Object.entries(BENCHMARKS)) {
  if (wanted.length && !wanted.includes(id)) continue;
  await bench.run();
}
