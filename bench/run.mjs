// Runs the benchmarks (npm run bench, after a build). Arguments narrow the run: `npm run bench -- b3`
// (or `node bench/run.mjs b1 b3`).
// Each benchmark measures Runyard and its baseline in the same run and prints
// `name: value unit (baseline: value unit, ratio R)` (see ../shared/design/performance.md).
import * as b1Projects from './b1-projects.mjs';
import * as b1Jobs from './b1-jobs.mjs';
import * as b2 from './b2-submissions.mjs';
import * as b3 from './b3-latency.mjs';
import * as b4 from './b4-throughput.mjs';
import * as b5 from './b5-memory.mjs';
import * as b6 from './b6-cli.mjs';
import * as b7 from './b7-load.mjs';
import * as b8 from './b8-slurm.mjs';
import * as b9 from './b9-images.mjs';
import * as web from './web-load.mjs';

// B1 is two figures: the project list and the job list.
const b1 = {
  run: async () => {
    await b1Projects.run();
    await b1Jobs.run();
  },
};
const BENCHMARKS = { b1, b2, b3, b4, b5, b6, b7, b8, b9, web };

const wanted = process.argv.slice(2).map((a) => a.toLowerCase());
const unknown = wanted.filter((id) => !Object.hasOwn(BENCHMARKS, id));
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose among ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
for (const [id, bench] of Object.entries(BENCHMARKS)) {
  if (wanted.length && !wanted.includes(id)) continue;
  await bench.run();
}
