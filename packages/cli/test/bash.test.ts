import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { CLI, cliEnv, runCli, tempDir } from './support/run-cli.js';

const ID = /^[0-9a-f]{24}$/;
const FAST = ['--request-interval', '0.1', '--wait-time', '20'];

describe('runyard bash job', { timeout: 300_000 }, () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld();
  });
  after(async () => {
    await w.close();
  });

  const run = (args: string[], options: Parameters<typeof runCli>[1] = {}) => runCli([...args, ...w.conn], options);
  const bash = ['bash', 'job', '--project-name', 'demo', '--workflow-name', 'ubuntu'];

  it('--wait-completion runs the command to completion: exit 0, the id on stdout, the link and progress on stderr', async () => {
    const r = await run([
      ...bash,
      '--command',
      // Into its results folder: a sandboxed task writes nowhere else.
      // The parameters are appended to its last command (echo), once.
      `printf '%s|' "$RUNYARD_PARAM_GREETING" > "$RUNYARD_RESULTS_DIR/out.txt"; echo >> "$RUNYARD_RESULTS_DIR/out.txt"`,
      '-p',
      '--greeting=hello; rm -rf /',
      '--job-name',
      'hello-job',
      '--wait-completion',
      ...FAST,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const id = r.stdout.trim();
    assert.match(id, ID);
    assert.equal(r.stdout, `${id}\n`);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines[0], `Job "hello-job" launched: ${w.s.url}/app/advanced-analytics/analyses/${id}`);
    // Piped: plain lines, one per status change, and the end.
    assert.ok(!r.stderr.includes('\r'), 'no terminal control characters when piped');
    assert.match(lines.at(-1)!, new RegExp(`^Job ${id} completed \\(\\d+s\\)\\.$`));
    for (const line of lines.slice(1, -1))
      assert.match(line, new RegExp(`^Job ${id}: (queued|scheduled|initializing|running|completed) \\(\\d+s\\)$`));
    // The parameter reached the command as a variable and as arguments, never as shell text.
    const out = path.join(w.s.config.dataDir, 'storage', `runyard-${w.ws}`, w.ws, 'jobs', id, 'results', 'out.txt');
    assert.equal(readFileSync(out, 'utf8'), 'hello; rm -rf /|--greeting hello; rm -rf /\n');
    const job = await w.client.getJobStatus(id, w.ws);
    assert.equal(job.status, 'completed');
    assert.equal(job.name, 'hello-job');
    assert.deepEqual(job.resourceRequirements, { cpu: 1, ram: 4 });
  });

  it('a failing command exits 1 and says the job failed', async () => {
    const r = await run([...bash, '--command', 'exit 3', '--wait-completion', ...FAST]);
    assert.equal(r.code, 1, r.stderr);
    const id = r.stdout.trim();
    assert.match(id, ID);
    assert.match(r.stderr, new RegExp(`\\nError: Job ${id} failed after \\d+s[^\\n]*\\n$`));
    assert.equal((await w.client.getJobStatus(id, w.ws)).status, 'failed');
  });

  it('without --wait-completion it returns at once with the id; --cpus and --memory reach the job', async () => {
    const r = await run([...bash, '--command', 'true', '--cpus', '2', '--memory', '8']);
    assert.equal(r.code, 0, r.stderr);
    const id = r.stdout.trim();
    assert.match(id, ID);
    assert.match(
      r.stderr,
      new RegExp(
        `\\nJob ${id} is (queued|scheduled|initializing|running|completed); follow it with "runyard job status --job-id ${id}"\\.\\n$`,
      ),
    );
    const done = await w.client.waitJobCompletion(id, w.ws, { requestInterval: 0.1, waitTime: 20 });
    assert.equal(done.status, 'completed');
    assert.deepEqual((await w.client.getJobStatus(id, w.ws)).resourceRequirements, { cpu: 2, ram: 8 });
  });

  it('--wait-time ends the wait with exit 1 while the job goes on', async () => {
    const r = await run([...bash, '--command', 'sleep 30', '--wait-completion', '--request-interval', '0.1', '--wait-time', '0.5']);
    assert.equal(r.code, 1, r.stderr);
    const id = r.stdout.trim();
    assert.match(
      r.stderr,
      new RegExp(`Error: Job ${id} has not finished after 0.5 seconds; its status is (queued|scheduled|initializing|running)\\.`),
    );
    await w.client.abortJob(id, w.ws, true);
    assert.equal((await w.client.waitJobCompletion(id, w.ws, { requestInterval: 0.1, waitTime: 20 })).status, 'aborted');
  });

  it('project and workflow names come from the profile when not given', async () => {
    const home = tempDir('runyard-home-');
    const c = await runCli(['configure', ...w.conn, '--project-name', 'demo', '--workflow-name', 'ubuntu'], { home });
    assert.equal(c.code, 0, c.stderr);
    const r = await runCli(['bash', 'job', '--command', 'true', '--wait-completion', ...FAST], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^[0-9a-f]{24}\n$/);
  });

  it('usage errors exit 2: no --command, no project name anywhere, a bad --cpus', async () => {
    const noCommand = await run(['bash', 'job', '--project-name', 'demo', '--workflow-name', 'ubuntu']);
    assert.equal(noCommand.code, 2);
    assert.match(noCommand.stderr, /--command/);
    const noProject = await run(['bash', 'job', '--command', 'true', '--workflow-name', 'ubuntu']);
    assert.equal(noProject.code, 2);
    assert.equal(
      noProject.stderr,
      'Error: Missing option: --project-name. Give it on the command line, or save project_name in a profile with "runyard configure".\n',
    );
    const cpus = await run([...bash, '--command', 'true', '--cpus', 'many']);
    assert.equal(cpus.code, 2);
    assert.match(cpus.stderr, /--cpus/);
  });

  it('an unknown project or workflow is an error naming it, and no job is created', async () => {
    const before = (await w.client.getJobList(w.ws, { lastNJobs: 'all' })).jobs.length;
    const p = await run(['bash', 'job', '--project-name', 'nope', '--workflow-name', 'ubuntu', '--command', 'true']);
    assert.equal(p.code, 1);
    assert.equal(p.stdout, '');
    assert.match(p.stderr, /^Error: [^\n]*'nope'[^\n]*\n$/);
    const wf = await run(['bash', 'job', '--project-name', 'demo', '--workflow-name', 'nope', '--command', 'true']);
    assert.equal(wf.code, 1);
    assert.match(wf.stderr, /^Error: [^\n]*"nope"[^\n]*\n$/);
    assert.equal((await w.client.getJobList(w.ws, { lastNJobs: 'all' })).jobs.length, before);
  });

  // util-linux `script` gives the CLI a real terminal.
  const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
  it(
    'on a terminal --wait-completion shows one status line, redrawn in place',
    { skip: !hasScript && 'needs util-linux script' },
    async () => {
      const args = [...bash, '--command', 'sleep 1.5', '--wait-completion', '--request-interval', '0.2', '--wait-time', '20', ...w.conn];
      const command = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: cliEnv(tempDir('runyard-home-')),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.resume();
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      clearTimeout(timer);
      assert.equal(code, 0, output);
      const id = /([0-9a-f]{24})\r?\n/.exec(output)?.[1];
      assert.ok(id, output);
      assert.ok(output.includes(`\r\x1b[2KJob ${id} (new_job): running, `), output);
      assert.ok(!new RegExp(`\\nJob ${id}: running`).test(output), 'no plain status lines on a terminal');
      assert.match(output, new RegExp(`\\r\\x1b\\[2KJob ${id} completed \\(\\d+s\\)\\.\\r?\\n`));
    },
  );
});
