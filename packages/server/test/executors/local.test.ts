import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { AttemptControl, TaskSpec } from '../../src/executors/executor.js';
import { LocalExecutor, type LocalId } from '../../src/executors/local.js';
import type { Sandbox } from '../../src/executors/sandbox/sandbox.js';
import { groupMembers, isRunning, parseProcStat, readProcStat } from '../../src/executors/proc.js';
import { groupRunning } from './group.js';
import { claimFileOf, fenceAttempt, recordFileOf, WRAPPER_SCRIPT } from '../../src/executors/wrapper.js';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

function scratch(): { dir: string; control: AttemptControl; log: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-exec-'));
  return { dir, control: { dir: path.join(dir, 'control'), attempt: 1 }, log: path.join(dir, 'logs', 'stdout.txt') };
}

function bash(script: string, dir: string, log: string, args: string[] = []): TaskSpec {
  return { argv: ['bash', '-c', script, 'job', ...args], env: ENV, cwd: dir, logFile: log };
}

async function waitUntil(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('local executor', { timeout: 300_000 }, () => {
  const executor = new LocalExecutor(50);

  it('runs a task in its own process group, appends its output to the log, records pid and exit code', async () => {
    const { dir, control, log } = scratch();
    const id = (await executor.launch(
      { ...bash('echo out; echo err >&2; exit 7', dir, log), preamble: ['first line'] },
      control,
    )) as LocalId;
    assert.equal(id.backend, 'local');
    assert.match(id.startTime, /^\d+$/);
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 7 });
    assert.equal(readFileSync(log, 'utf8'), 'first line\nout\nerr\n');
    // One control file of the wrapper's: its pid and start time, then the exit status, which bwrap
    // (exec'd by the wrapper) reports as JSON: the task's pid in the sandbox, then its exit code.
    assert.match(
      readFileSync(recordFileOf(control), 'utf8'),
      new RegExp(`^${id.pid} ${id.startTime}\\n\\{ "child-pid": \\d+[^\\n]*\\}\\n\\{ "exit-code": 7 \\}\\n$`),
    );
    assert.deepEqual(readdirSync(control.dir), [path.basename(recordFileOf(control))]);
    assert.deepEqual(await executor.inspect(control, id), { state: 'exited', exitCode: 7 });
  });

  it("a sandbox that reports no status (bwrap, when it cannot set up the sandbox): the job's exit code is the wrapper's, as the spawner saw it", async () => {
    const { dir, control, log } = scratch();
    // bwrap writes its status only once the task's program started; this one never writes it.
    const silent: Sandbox = {
      kind: 'bwrap',
      argv: (task) => task.argv,
      statusArgv: () => ['/bin/sh', '-c', 'echo cannot set up >&2; exit 3'],
      note: null,
    };
    const id = (await new LocalExecutor(50, silent).launch(bash('touch ran', dir, log), control)) as LocalId;
    assert.deepEqual(
      await new LocalExecutor(50, silent).wait(control, id),
      { state: 'lost', reason: `the task's process (pid ${id.pid}) ended without recording an exit code` },
      'another process never saw it end',
    );
    const again = scratch();
    const executor2 = new LocalExecutor(50, silent);
    const id2 = (await executor2.launch(bash('touch ran', again.dir, again.log), again.control)) as LocalId;
    assert.deepEqual(await executor2.wait(again.control, id2), { state: 'exited', exitCode: 3 });
    assert.equal(readFileSync(recordFileOf(again.control), 'utf8'), `${id2.pid} ${id2.startTime}\n`, 'the claim, and no status');
    assert.match(readFileSync(again.log, 'utf8'), /cannot set up/);
    assert.equal(existsSync(path.join(again.dir, 'ran')), false);
    // Its end reached this process before anyone waited for it (an end that follows the start at once, on
    // a busy host): the wait still gets the spawner's exit code.
    const late = scratch();
    const id3 = (await executor2.launch(bash('touch ran', late.dir, late.log), late.control)) as LocalId;
    await waitUntil('the wrapper ended', () => !isRunning(id3.pid, id3.startTime));
    await sleep(300);
    assert.deepEqual(await executor2.wait(late.control, id3), { state: 'exited', exitCode: 3 });
  });

  it('the task is the leader of a new process group and session, and gets exactly the environment given', async () => {
    const { dir, control, log } = scratch();
    const id = (await executor.launch(
      { argv: ['bash', '-c', 'env; sleep 5'], env: { PATH: ENV.PATH, ONLY: 'this' }, cwd: dir, logFile: log },
      control,
    )) as LocalId;
    const stat = readProcStat(id.pid)!;
    assert.equal(stat.pgrp, id.pid);
    await waitUntil('env output', () => existsSync(log) && readFileSync(log, 'utf8').includes('ONLY='));
    const vars = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => l.split('=')[0]);
    assert.deepEqual(vars.filter((v) => !['PWD', 'SHLVL', '_'].includes(v)).sort(), ['ONLY', 'PATH']);
    await executor.kill(id, { force: true, graceMs: 0 });
  });

  it('inspect finds a running task by its stored id or, without one, by its pid file', async () => {
    const { dir, control, log } = scratch();
    const id = await executor.launch(bash('sleep 5', dir, log), control);
    await waitUntil('pid file', () => existsSync(recordFileOf(control)));
    assert.deepEqual(await executor.inspect(control, id), { state: 'running', id });
    assert.deepEqual(await executor.inspect(control, null), { state: 'running', id });
    await executor.kill(id, { force: true, graceMs: 0 });
    assert.equal((await executor.inspect(control, id)).state, 'lost');
  });

  it('a pid with another start time is not the task: a reused pid is never mistaken for it', async () => {
    const { dir, control, log } = scratch();
    const id = (await executor.launch(bash('sleep 5', dir, log), control)) as LocalId;
    const forged: LocalId = { ...id, startTime: String(Number(id.startTime) - 1) };
    const state = await executor.inspect(control, forged);
    assert.equal(state.state, 'lost');
    await executor.kill(forged, { force: true, graceMs: 0 });
    assert.ok(readProcStat(id.pid), 'a kill by a forged id signalled the real task');
    await executor.kill(id, { force: true, graceMs: 0 });
  });

  it('no control files: the task never started (absent)', async () => {
    const { control } = scratch();
    assert.deepEqual(await executor.inspect(control, null), { state: 'absent' });
  });

  it('an attempt with no trace is fenced when found absent: should its wrapper start after all, it runs nothing', async () => {
    const { dir, control, log } = scratch();
    assert.deepEqual(await executor.inspect(control, null), { state: 'absent' });
    const id = (await executor.launch(bash('touch "$PWD/ran"', dir, log), control)) as LocalId;
    assert.deepEqual(await executor.wait(control, id), {
      state: 'lost',
      reason: `the task's process (pid ${id.pid}) ended without recording an exit code`,
    });
    assert.equal(existsSync(path.join(dir, 'ran')), false);
    // A wrapper that claimed its attempt first is not fenced: the attempt is inspected as it ran.
    const other = scratch();
    const ran = (await executor.launch(bash('exit 6', other.dir, other.log), other.control)) as LocalId;
    await executor.wait(other.control, ran);
    assert.equal(await fenceAttempt(other.control), false);
    assert.deepEqual(await new LocalExecutor(50).inspect(other.control, null), { state: 'exited', exitCode: 6 });
  });

  it('a fence made twice (two schedulers, or a retry) holds both times; an array element that claimed first is not fenced', async () => {
    const { control } = scratch();
    assert.equal(await fenceAttempt(control), true);
    assert.equal(await fenceAttempt(control), true);
    assert.deepEqual(await executor.inspect(control, null), { state: 'absent' });
    const element = scratch();
    mkdirSync(element.control.dir, { recursive: true });
    writeFileSync(claimFileOf(element.control), '4242\n');
    assert.equal(await fenceAttempt(element.control), false);
  });

  it('reads the control files of a wrapper of an earlier version: its pid file, and its exit status in a file of its own', async () => {
    const { control } = scratch();
    mkdirSync(control.dir, { recursive: true });
    const gone = spawnSync('true');
    writeFileSync(recordFileOf(control), `${gone.pid} 1\n`);
    writeFileSync(path.join(control.dir, 'attempt-1.exit'), '3\n');
    assert.deepEqual(await executor.inspect(control, null), { state: 'exited', exitCode: 3 });
  });

  it('a task killed with SIGKILL leaves no exit file: lost', async () => {
    const { dir, control, log } = scratch();
    const id = (await executor.launch(bash('sleep 30', dir, log), control)) as LocalId;
    await waitUntil('pid file', () => existsSync(recordFileOf(control)));
    process.kill(-id.pid, 'SIGKILL');
    const end = await executor.wait(control, id);
    assert.equal(end.state, 'lost');
  });

  it('waits by polling for a task another executor (an earlier server life) launched', async () => {
    const { dir, control, log } = scratch();
    const id = await new LocalExecutor().launch(bash('sleep 0.3; exit 2', dir, log), control);
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 2 });
  });

  it('wait rejects when its signal aborts, and the task keeps running', async () => {
    const { dir, control, log } = scratch();
    const id = (await executor.launch(bash('sleep 5', dir, log), control)) as LocalId;
    const stop = new AbortController();
    const waiting = executor.wait(control, id, stop.signal);
    stop.abort();
    await assert.rejects(waiting);
    assert.equal((await executor.inspect(control, id)).state, 'running');
    await executor.kill(id, { force: true, graceMs: 0 });
  });

  it('a graceful kill sends SIGTERM to the whole group; the task may clean up', async () => {
    const { dir, control, log } = scratch();
    const id = (await executor.launch(bash('trap "echo got TERM; exit 0" TERM; sleep 30 & sleep 30 & wait', dir, log), control)) as LocalId;
    await waitUntil('children', () => groupRunning(id.pid, 'sleep') >= 2);
    const started = Date.now();
    // A grace period longer than any delay of a loaded machine: ending before it means SIGTERM did it.
    const graceMs = 30_000;
    await executor.kill(id, { force: false, graceMs });
    assert.ok(Date.now() - started < graceMs, 'the task should have ended on SIGTERM');
    assert.deepEqual(groupMembers(id.pid), []);
    await executor.wait(control, id);
    assert.match(readFileSync(log, 'utf8'), /got TERM/);
  });

  it('a graceful kill of a task ignoring SIGTERM ends with SIGKILL after the grace period; nothing of the group is left', async () => {
    const { dir, control, log } = scratch();
    const id = (await executor.launch(bash('trap "" TERM; sleep 30 & sleep 30', dir, log), control)) as LocalId;
    await waitUntil('children', () => groupRunning(id.pid, 'sleep') >= 2);
    const started = Date.now();
    await executor.kill(id, { force: false, graceMs: 500 });
    assert.ok(Date.now() - started >= 450, 'SIGKILL came before the grace period');
    assert.deepEqual(groupMembers(id.pid), []);
    assert.equal((await executor.wait(control, id)).state, 'lost');
  });

  it('a forced kill ends the task and its children at once', async () => {
    const { dir, control, log } = scratch();
    const id = (await executor.launch(bash('sleep 30 & sleep 30 & wait', dir, log), control)) as LocalId;
    await waitUntil('children', () => groupRunning(id.pid, 'sleep') >= 2);
    const started = Date.now();
    const graceMs = 60_000;
    await executor.kill(id, { force: true, graceMs });
    // Not after the grace period, however slow the machine.
    assert.ok(Date.now() - started < graceMs);
    assert.deepEqual(groupMembers(id.pid), []);
  });

  it('what a finished task left running in its group is stopped', async () => {
    const { dir, control, log } = scratch();
    const id = (await executor.launch(bash('sleep 30 & echo done', dir, log), control)) as LocalId;
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
    assert.deepEqual(groupMembers(id.pid), []);
  });

  it('argv reaches the task exactly, whatever it holds; the wrapper script is a constant', async () => {
    const { dir, control, log } = scratch();
    const values = ['a; touch MARK', '$(touch MARK)', '`touch MARK`', 'two\nlines', '-n', '--help', `"'`, '*', '$HOME', ' spaced '];
    const out = path.join(dir, 'args.bin');
    const id = await executor.launch(
      { argv: ['bash', '-c', 'printf "%s\\0" "$@" > "$0"', out, ...values], env: ENV, cwd: dir, logFile: log },
      control,
    );
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
    assert.deepEqual(readFileSync(out, 'utf8').split('\0').slice(0, -1), values);
    assert.ok(!existsSync(path.join(dir, 'MARK')));
    assert.ok(!WRAPPER_SCRIPT.includes(dir));
  });

  it('a task printing 1 GB to stdout goes straight to the log file: the server process does not grow', async () => {
    const { dir, control, log } = scratch();
    const before = process.memoryUsage().rss;
    const id = await executor.launch(bash('head -c 1073741824 /dev/zero', dir, log), control);
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
    assert.equal(statSync(log).size, 1024 * 1024 * 1024);
    const grown = process.memoryUsage().rss - before;
    rmSync(dir, { recursive: true, force: true });
    assert.ok(grown < 64 * 1024 * 1024, `rss grew by ${Math.round(grown / 1024 / 1024)} MiB`);
  });

  it('parses /proc/<pid>/stat whatever the command name holds', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = 'S';
    fields[2] = '4242';
    fields[19] = '987654';
    assert.deepEqual(parseProcStat(`4242 (a) b (c) ${fields.join(' ')}\n`), { pid: 4242, state: 'S', pgrp: 4242, startTime: '987654' });
    assert.equal(parseProcStat('garbage'), null);
  });
});
