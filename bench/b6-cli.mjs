// B6 for issue 15 (../shared/design/performance.md): how long the CLI takes, start to exit, for
// `runyard --version` and for `runyard job list` against a local server with 200 jobs, against
// the same commands of the Python cloudos-cli when `cloudos` is installed (our API is the one it
// talks to), otherwise against `python3 -c "import requests"` (the least the Python CLI does
// before any of its commands). Target: ratio <= 0.5. Runs alternate, so both meet the same noise.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { percentile, startJobServer, untilEnded } from './lib/jobs.mjs';
import { figure } from './lib/report.mjs';
import { scratchDir } from './lib/scratch.mjs';

const RUNS = Number(process.env.BENCH_B6_RUNS ?? 15);
const JOBS = 200;
const runyardBin = new URL('../packages/cli/bin/runyard.js', import.meta.url).pathname;

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Milliseconds from spawn to exit of one run; throws when the command fails. Not spawnSync: the server runs in this process. */
function timeOf({ program, args }, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(program, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - t0;
      if (code === 0) resolve(ms);
      else reject(new Error(`${program} ${args.join(' ')} failed (${code}): ${err.slice(0, 400)}`));
    });
  });
}

/** Median milliseconds of each command over RUNS alternating runs (after one warm-up run of each). */
async function medians(a, b, env) {
  await timeOf(a, env);
  await timeOf(b, env);
  const ta = [];
  const tb = [];
  for (let i = 0; i < RUNS; i++) {
    ta.push(await timeOf(a, env));
    tb.push(await timeOf(b, env));
  }
  return [
    percentile(
      ta.sort((x, y) => x - y),
      0.5,
    ),
    percentile(
      tb.sort((x, y) => x - y),
      0.5,
    ),
  ];
}

export async function run() {
  const home = scratchDir('runyard-bench-home-');
  const s = await startJobServer({ env: { RUNYARD_LOCAL_CPUS: '1' } });
  try {
    // Jobs to list, all ended before the runs: the figure is the CLI's, not the server's while jobs change
    // (the list under changes is B1's and B7's).
    const jobs = [];
    for (let i = 0; i < JOBS; i += 20)
      jobs.push(...(await Promise.all(Array.from({ length: 20 }, () => s.call('POST', `/api/v2/jobs?teamId=${s.ws}`, s.body('true'))))));
    for (const { jobId } of jobs) await untilEnded(s.call, s.ws, jobId);
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      RUNYARD_PLATFORM_URL: s.url,
      RUNYARD_APIKEY: s.apikey,
      RUNYARD_WORKSPACE_ID: s.ws,
    };
    const cloudos = onPath('cloudos');
    const python = { program: 'python3', args: ['-c', 'import requests'] };
    const baseline = (args) => (cloudos ? { program: 'cloudos', args } : python);
    const baselineName = cloudos ? 'cloudos-cli' : 'python3 -c "import requests"';
    console.log(`# B6 CLI start to exit, median of ${RUNS} runs each; baseline: ${baselineName}`);

    const [version, versionBase] = await medians(
      { program: process.execPath, args: [runyardBin, '--version'] },
      baseline(['--version']),
      env,
    );
    console.log(figure('B6 runyard --version', version, versionBase, 'ms'));

    const listArgs = ['--cloudos-url', s.url, '--apikey', s.apikey, '--workspace-id', s.ws];
    const [list, listBase] = await medians(
      { program: process.execPath, args: [runyardBin, 'job', 'list', '--last-n-jobs', '100'] },
      baseline(['job', 'list', ...listArgs, '--last-n-jobs', '100']),
      env,
    );
    console.log(figure('B6 runyard job list', list, listBase, 'ms'));
  } finally {
    await s.close();
  }
}
