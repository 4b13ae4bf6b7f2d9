import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { CLI, cliEnv, runCli, tempDir } from './support/run-cli.js';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

// Getting files out: `job results|workdir|logs --download DIR` and `datasets download PATH [DEST]`,
// through GET /api/runyard/storage/object (Range: a stopped download resumes).
describe('runyard downloads', { timeout: 300_000 }, () => {
  let w: JobWorld;
  let jobId = '';
  let dir = '';
  const big = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256));
  before(async () => {
    w = await jobWorld();
    dir = tempDir('runyard-download-');
    const src = path.join(dir, 'big.bin');
    writeFileSync(src, big);
    const r = await runCli(
      [
        'bash',
        'job',
        '--project-name',
        'demo',
        '--workflow-name',
        'ubuntu',
        '--command',
        `mkdir -p "$RUNYARD_RESULTS_DIR/sub"; echo alpha > "$RUNYARD_RESULTS_DIR/a.txt"; head -c 300000 /dev/zero | tr '\\0' 'z' > "$RUNYARD_RESULTS_DIR/sub/b.bin"; echo worked > w.txt; echo logged; true`,
        '--wait-completion',
        '--request-interval',
        '0.1',
        ...w.conn,
      ],
      { timeoutMs: 120_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    jobId = r.stdout.trim();
    const ds = await w.client.datasets(w.ws, 'demo');
    await ds.uploadFile(src, 'Data');
    await ds.createVirtualFolder('reads', (await ds.findDestination('Data')).id, 'Dataset');
    await ds.uploadFile(src, 'Data/reads', { name: 'r1.bin' });
  });
  after(async () => {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (args: string[]) => runCli([...args, ...w.conn], { timeoutMs: 120_000 });

  it('job results --download copies the results with their tree, then only what is missing; a stopped download resumes', async () => {
    const out = path.join(dir, 'results');
    const r = await run(['job', 'results', '--job-id', jobId, '--download', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${out}\n`);
    assert.equal(readFileSync(path.join(out, 'a.txt'), 'utf8'), 'alpha\n');
    assert.equal(readFileSync(path.join(out, 'sub', 'b.bin'), 'utf8'), 'z'.repeat(300_000));
    assert.match(r.stderr, /Downloaded: .*a\.txt \(6 B\)/);
    assert.match(r.stderr, /2 files, 293\.0 KB\.\n$/);
    const again = await run(['job', 'results', '--job-id', jobId, '--download', out]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /2 files, 293\.0 KB \(2 already there\)\./);
    // A download that stopped half-way: its .part is continued, not started again.
    const b = path.join(out, 'sub', 'b.bin');
    renameSync(b, `${b}.part`);
    writeFileSync(`${b}.part`, 'z'.repeat(100_000));
    const resumed = await run(['job', 'results', '--job-id', jobId, '--download', out]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /Resumed: .*b\.bin/);
    assert.equal(readFileSync(b, 'utf8'), 'z'.repeat(300_000));
    assert.ok(!existsSync(`${b}.part`));
  });

  it('job logs --download and job workdir --download copy those folders', async () => {
    const logs = path.join(dir, 'logs');
    const r = await run(['job', 'logs', '--job-id', jobId, '--download', logs]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(readFileSync(path.join(logs, 'stdout.txt'), 'utf8'), /logged\n/);
    const work = path.join(dir, 'work');
    const wd = await run(['job', 'workdir', '--job-id', jobId, '--download', work]);
    assert.equal(wd.code, 0, wd.stderr);
    assert.equal(readFileSync(path.join(work, 'w.txt'), 'utf8'), 'worked\n');
  });

  it('datasets download copies a file (to a name or into a directory) and a virtual folder with its files', async () => {
    const file = path.join(dir, 'copy.bin');
    const r = await run(['datasets', 'download', '--project-name', 'demo', 'Data/big.bin', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readFileSync(file), big);
    const into = tempDir('runyard-download-into-');
    try {
      const folder = await run(['datasets', 'download', '--project-name', 'demo', 'Data/reads', into]);
      assert.equal(folder.code, 0, folder.stderr);
      assert.deepEqual(readFileSync(path.join(into, 'reads', 'r1.bin')), big);
      const plain = await run(['datasets', 'download', '--project-name', 'demo', 'Data/big.bin', into]);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(statSync(path.join(into, 'big.bin')).size, big.length);
    } finally {
      rmSync(into, { recursive: true, force: true });
    }
    const missing = await run(['datasets', 'download', '--project-name', 'demo', 'Data/none.bin', dir]);
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /Download failed\. Item 'none\.bin' not found in 'Data'/);
  });

  it(
    'on a terminal, shows one progress bar over all the bytes instead of a line per file',
    { skip: !hasScript && 'needs util-linux script' },
    async () => {
      const into = tempDir('runyard-download-tty-');
      const command = [process.execPath, CLI, 'datasets', 'download', '--project-name', 'demo', 'Data/reads', into, ...w.conn]
        .map((a) => `'${a}'`)
        .join(' ');
      // Not spawnSync: the server answering the CLI runs in this process.
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: cliEnv(tempDir('runyard-home-')),
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      const code = await new Promise((resolve) => child.on('close', resolve));
      clearTimeout(timer);
      assert.equal(code, 0, output);
      assert.deepEqual(readFileSync(path.join(into, 'reads', 'r1.bin')), big);
      // cli-progress draws the bar (█ of its shades preset) and ends at 100% of the total.
      assert.match(output, /█+ 100% \| 293\.0 KB of 293\.0 KB \| r1\.bin/);
      assert.doesNotMatch(output, /Downloaded: /);
      assert.match(output, /1 file, 293\.0 KB\./);
    },
  );

  it('says so when the results are being deleted, and downloads nothing', async () => {
    const del = await run(['job', 'results', '--job-id', jobId, '--delete', '--yes']);
    assert.equal(del.code, 0, del.stderr);
    const out = path.join(dir, 'gone');
    const r = await run(['job', 'results', '--job-id', jobId, '--download', out]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /(deleting|scheduled for deletion|deleted)/i);
    assert.ok(!existsSync(out));
  });
});
