// B9 for issue 43 (container jobs run in their image): two figures, each against its baseline in
// the same run, with images built offline (lib/bench-images.mjs) and pushed to a real registry
// (Debian's docker-registry on 127.0.0.1, lib/registry.mjs).
//
// 1. A trivial bash job (`true`) in a cached image (a small image: bash and the top-level folders of
//    a Debian root), on a server with the default RUNYARD_JOB_IMAGES=pull, against the same job on a
//    server with RUNYARD_JOB_IMAGES=host (today's host sandbox). Measured as B3 measures, jobs one
//    after the other on an idle server, but to the job's end: p50 and p99 of endTime minus the
//    client's wall clock just before the POST (the image's extra costs are before the launch, the
//    registry check of a cached image, and after it, the sandbox's binds of the image's root; a
//    submit-to-running figure would miss the latter: it is printed too). Both servers run in this
//    process; their jobs go in alternate batches, so that drift in the machine's speed hits both.
// 2. The cold pull of a ~100 MB image (the small one plus a layer of 100 MiB of random bytes) into
//    an empty cache (ImageCache.pull: skopeo inspect, skopeo copy by digest into the cache's OCI
//    layout, umoci raw unpack, chmod -R) against `skopeo copy` of the same image from the same
//    registry into an empty OCI layout. Pairs alternate (AB, BA, ...); the ratio is the median of
//    the pairs' ratios.
//
// The registry, the images and every cache and layout are removed at the end.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImageCache } from '../packages/server/dist/images/image-cache.js';
import { buildBenchImages } from './lib/bench-images.mjs';
import { inChild } from './lib/child.mjs';
import { percentile, startJobServer } from './lib/jobs.mjs';
import { registryToolsMissing, startRegistry } from './lib/registry.mjs';
import { figure } from './lib/report.mjs';

const ROUNDS = Number(process.env.BENCH_B9_ROUNDS ?? 5);
const JOBS_PER_ROUND = Number(process.env.BENCH_B9_JOBS_PER_ROUND ?? 10);
const PAIRS = Number(process.env.BENCH_B9_PAIRS ?? 5);
const BIG_BYTES = Number(process.env.BENCH_B9_BIG_MIB ?? 100) * 1024 * 1024;
const clients = new URL('./lib/job-clients.mjs', import.meta.url).href;

const ms = (v) => `${v.toFixed(1)} ms`;
const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

export async function run() {
  const missing = registryToolsMissing();
  if (missing) {
    console.log(`# B9 skipped: ${missing}`);
    return;
  }
  const built = Date.now();
  const images = buildBenchImages({ bigBytes: BIG_BYTES });
  let registry;
  try {
    registry = await startRegistry();
    registry.push(images.layout, 'small', 'bench/small:1');
    registry.push(images.layout, 'big', 'bench/big:1');
    console.log(`# B9 images built and pushed to ${registry.host} in ${((Date.now() - built) / 1000).toFixed(1)} s`);
    await cachedImageJobs(registry);
    await coldPulls(registry);
  } finally {
    await registry?.stop();
    images.dispose();
  }
}

/** Line 1: a trivial job in a cached image against the same job in the host sandbox. */
async function cachedImageJobs(registry) {
  const image = `${registry.host}/bench/small:1`;
  const onHost = await startJobServer({ env: { RUNYARD_JOB_IMAGES: 'host' } });
  let inImage;
  try {
    inImage = await startJobServer({ env: { RUNYARD_JOB_IMAGES: 'pull', RUNYARD_INSECURE_REGISTRIES: registry.host } });
    const workflow = await inImage.call('POST', '/api/runyard/admin/workflows/docker', {
      workspaceId: inImage.ws,
      name: 'bench-image',
      containerName: image,
    });
    const sides = {
      host: { s: onHost, body: onHost.body('true'), records: [] },
      image: { s: inImage, body: { ...inImage.body('true'), workflow: workflow._id }, records: [] },
    };
    const jobs = (side, count, body = side.body) =>
      inChild(clients, 'sequentialJobs', { url: side.s.url, apikey: side.s.apikey, ws: side.s.ws, body, count }, count * 10_000 + 60_000);
    console.log(
      `# B9 a bash job \`true\` in the cached image ${image} against the same job in the host sandbox (RUNYARD_JOB_IMAGES=host), ` +
        `${ROUNDS} alternate batches of ${JOBS_PER_ROUND} jobs one after the other on each idle server`,
    );
    // Not counted: the first launch loads engine and executor code; the image server's first job pulls
    // the image into its cache, and shows that the job runs in it (the host has node; the image has not).
    await jobs(sides.host, 1);
    const [first] = await jobs(sides.image, 1, { ...sides.image.body, command: 'if [ -e /usr/bin/node ]; then exit 3; fi; true' });
    if (first.status !== 'completed') {
      const job = await inImage.call('GET', `/api/v1/jobs/${first.jobId}?teamId=${inImage.ws}`);
      throw new Error(
        `the image's first job did not run in the image: ${first.status}: ${job.statusMessage ?? ''} (data in ${inImage.dataDir})`,
      );
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [sides.image, sides.host] : [sides.host, sides.image];
      for (const side of order) side.records.push(...(await jobs(side, JOBS_PER_ROUND)));
    }
    const figures = {};
    for (const [name, side] of Object.entries(sides)) {
      const bad = side.records.filter((r) => r.status !== 'completed' || !r.startTime || !r.endTime);
      if (bad.length) throw new Error(`${name}: ${bad.length} of ${side.records.length} jobs did not complete: ${JSON.stringify(bad[0])}`);
      const sorted = (f) => side.records.map(f).sort((a, b) => a - b);
      const toEnd = sorted((r) => Date.parse(r.endTime) - r.submittedAt);
      const toRunning = sorted((r) => Date.parse(r.startTime) - r.submittedAt);
      const running = sorted((r) => Date.parse(r.endTime) - Date.parse(r.startTime));
      figures[name] = {
        p50: percentile(toEnd, 0.5),
        p99: percentile(toEnd, 0.99),
        toRunning: percentile(toRunning, 0.5),
        running: percentile(running, 0.5),
      };
    }
    const { host, image: img } = figures;
    console.log(
      `# B9 where it goes (p50, image vs host): submit-to-running ${ms(img.toRunning)} vs ${ms(host.toRunning)} ` +
        `(the image's includes its registry check); startTime to endTime ${ms(img.running)} vs ${ms(host.running)}`,
    );
    console.log(
      `${figure('B9 job in a cached image, submit-to-end p50', img.p50, host.p50, 'ms')}: +${ms(img.p50 - host.p50)} over the host sandbox ` +
        `(target: < 10 ms); p99 ${ms(img.p99)} (baseline: ${ms(host.p99)})`,
    );
  } finally {
    await inImage?.close();
    await onHost.close();
    // The server's image cache is read-only: writable again, so that the end of the run can remove its data directory.
    if (inImage) await tool('chmod', ['-R', 'u+w', inImage.dataDir]).catch(() => undefined);
  }
}

/** Line 2: the cold pull of the big image into an empty cache against skopeo copy into an empty layout. */
async function coldPulls(registry) {
  const ref = `${registry.host}/bench/big:1`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-bench-pulls-'));
  try {
    const pull = async (where) => {
      const cache = new ImageCache({ dataDir: where, insecureRegistries: [registry.host] });
      const marks = [];
      const started = performance.now();
      await cache.pull(ref, { onProgress: (line) => marks.push([performance.now() - started, line]) });
      const total = performance.now() - started;
      const at = (pattern) => marks.find(([, line]) => pattern.test(line))?.[0] ?? NaN;
      const resolved = at(/ is sha256:[0-9a-f]{64}: /);
      const copied = at(/^Copied into the cache/);
      const unpacked = at(/^Unpacked into/);
      return { total, steps: { inspect: resolved, copy: copied - resolved, unpack: unpacked - copied, rest: total - unpacked } };
    };
    const copy = async (where) => {
      const started = performance.now();
      await tool('skopeo', ['copy', '--src-tls-verify=false', `docker://${ref}`, `oci:${where}:big`]);
      return { total: performance.now() - started };
    };
    const sides = { pull, copy };
    const results = { pull: [], copy: [] };
    console.log(
      `# B9 cold pull of ${ref} (${(BIG_BYTES / 1e6).toFixed(0)} MB of random bytes on a small base) into an empty cache (ImageCache.pull) ` +
        `against skopeo copy into an empty OCI layout, ${PAIRS} alternate pairs after one not counted`,
    );
    for (let i = 0; i <= PAIRS; i++) {
      const order = i % 2 ? ['copy', 'pull'] : ['pull', 'copy'];
      for (const side of order) {
        const where = path.join(dir, `${side}-${i}`);
        mkdirSync(where);
        const result = await sides[side](where);
        // Removed before the next run, outside its time (the cache's tree is read-only).
        await tool('chmod', ['-R', 'u+w', where]);
        rmSync(where, { recursive: true, force: true });
        if (i > 0) results[side].push(result);
      }
    }
    const ratios = results.pull.map((p, i) => p.total / results.copy[i].total);
    const step = (name) => median(results.pull.map((r) => r.steps[name]));
    console.log(
      `# B9 where the pull goes (medians): skopeo inspect ${ms(step('inspect'))}, skopeo copy ${ms(step('copy'))}, ` +
        `umoci unpack with its preparation and chmod ${ms(step('unpack'))}, the rest ${ms(step('rest'))}; ` +
        `pair ratios ${ratios.map((r) => r.toFixed(2)).join(' ')}`,
    );
    const pullS = median(results.pull.map((r) => r.total)) / 1000;
    const copyS = median(results.copy.map((r) => r.total)) / 1000;
    const line = figure(`B9 cold pull of a ${(BIG_BYTES / 1e6).toFixed(0)} MB image`, pullS, copyS, 's');
    console.log(`${line.replace(/ratio [0-9.]+\)$/, `ratio ${median(ratios).toFixed(2)}, median of ${PAIRS} pairs)`)} (target: <= 1.2x)`);
  } finally {
    await tool('chmod', ['-R', 'u+w', dir]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs a program (no shell) to its end; rejects with its stderr when it fails. */
function tool(program, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${program} ${args[0]}: exit ${code}: ${err.trim()}`))));
  });
}
