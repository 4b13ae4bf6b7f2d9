import assert from 'node:assert/strict';
import { execFile, fork, spawn } from 'node:child_process';
import { linkSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isRunning, readProcStat } from '../../src/executors/proc.js';
import { nativeSpawnNote } from '../../src/executors/spawner/native-spawn.js';
import { Spawner, type DetachedTask } from '../../src/executors/spawner/spawner.js';

const run = promisify(execFile);
const PATH = process.env.PATH ?? '/usr/bin:/bin';
const dir = () => mkdtempSync(path.join(os.tmpdir(), 'runyard-spawner-'));

/** A task's end, the process kept alive meanwhile as the local executor's wait does (the end alone does not). */
async function endOf(spawner: Spawner, task: DetachedTask) {
  const release = spawner.hold();
  try {
    return await task.ended;
  } finally {
    release();
  }
}

/** A /bin/sh task in a scratch directory whose log holds a line already. */
function shTask(script: string, more: { logHead?: string } = {}) {
  const d = dir();
  const log = path.join(d, 'log.txt');
  writeFileSync(log, 'before\n');
  return { d, log, request: { program: '/bin/sh', args: ['-c', script], cwd: d, env: { PATH }, logFile: log, ...more } };
}

// Tasks are started detached from a small helper process (executors/spawner/), with posix_spawn
// where the native module is built (the build makes it here: scripts/build-native.mjs), else with
// Node's spawn (RUNYARD_NATIVE_SPAWN=off). Each way passes the same tests.
for (const { way, nativeSpawn } of [
  { way: 'posix_spawn', nativeSpawn: 'auto' },
  { way: "Node's spawn", nativeSpawn: 'off' },
] as const) {
  describe(`the spawner process: detached tasks through ${way}`, () => {
    it('says how it starts them', async () => {
      const spawner = new Spawner({ nativeSpawn });
      const starts = await spawner.detachedStarts();
      if (nativeSpawn === 'off') assert.deepEqual(starts, { node: 'RUNYARD_NATIVE_SPAWN=off' });
      else assert.equal(starts, 'posix_spawn', `the native module should be built and loaded: ${JSON.stringify(starts)}`);
    });

    it('starts a task detached in its own process group, its output appended to the log, and reports its end', async () => {
      const spawner = new Spawner({ nativeSpawn });
      const { log, request } = shTask('echo out; echo err >&2; sleep 0.3');
      const task = await spawner.startDetached(request);
      const stat = readProcStat(task.pid);
      assert.ok(stat, 'the task runs');
      assert.equal(stat.startTime, task.startTime);
      assert.equal(stat.pgrp, task.pid, 'a process group of its own');
      assert.notEqual(task.pid, spawner.pid);
      assert.equal(await endOf(spawner, task), 'exited');
      assert.equal(isRunning(task.pid, task.startTime), false);
      assert.equal(readFileSync(log, 'utf8'), 'before\nout\nerr\n');
    });

    it("writes the server's notes (logHead) to the log before the task's output, and fails a start whose log cannot be written", async () => {
      const spawner = new Spawner({ nativeSpawn });
      const { d, log, request } = shTask('echo out', { logHead: 'Runyard: a note.\nRunyard: another.\n' });
      const task = await spawner.startDetached(request);
      assert.equal(await endOf(spawner, task), 'exited');
      assert.equal(readFileSync(log, 'utf8'), 'before\nRunyard: a note.\nRunyard: another.\nout\n');
      // A directory is no log: opening it to append fails, and nothing starts.
      await assert.rejects(
        spawner.startDetached({ program: '/bin/true', args: [], cwd: d, env: { PATH }, logFile: d, logHead: 'x\n' }),
        /EISDIR/,
      );
      // A log that is no regular file (a device, as a task could make of its log): refused before anything is written or started.
      await assert.rejects(
        spawner.startDetached({ program: '/bin/true', args: [], cwd: d, env: { PATH }, logFile: '/dev/full', logHead: 'x\n' }),
        /the task's log \/dev\/full is not a regular file/,
      );
      // A link as the log (an earlier attempt's task made it one): never opened, so nothing is written through it.
      const target = path.join(d, 'target.txt');
      writeFileSync(target, 'kept\n');
      symlinkSync(target, path.join(d, 'linked.log'));
      await assert.rejects(
        spawner.startDetached({
          program: '/bin/true',
          args: [],
          cwd: d,
          env: { PATH },
          logFile: path.join(d, 'linked.log'),
          logHead: 'x\n',
        }),
        /is a link or a FIFO/,
      );
      assert.equal(readFileSync(target, 'utf8'), 'kept\n');
      // A hard link as the log: its other name may be outside the job's directories, so it is not written either.
      linkSync(target, path.join(d, 'hard.log'));
      await assert.rejects(
        spawner.startDetached({ program: '/bin/true', args: [], cwd: d, env: { PATH }, logFile: path.join(d, 'hard.log'), logHead: 'x\n' }),
        /has other names \(hard links\): it is not used/,
      );
      assert.equal(readFileSync(target, 'utf8'), 'kept\n');
    });

    it('reports the end of a task that exits at once (its start and end may reach the server together)', async () => {
      const spawner = new Spawner({ nativeSpawn });
      const d = dir();
      for (let i = 0; i < 20; i++) {
        const task = await spawner.startDetached({ program: '/bin/true', args: [], cwd: d, env: { PATH }, logFile: path.join(d, 'log') });
        assert.equal(await endOf(spawner, task), 'exited');
      }
    });

    it('gives a task only the environment it is given', async () => {
      const spawner = new Spawner({ nativeSpawn });
      const d = dir();
      const task = await spawner.startDetached({
        program: '/usr/bin/env',
        args: [],
        cwd: d,
        env: { ONLY: 'this', PATH },
        logFile: path.join(d, 'env.txt'),
      });
      await endOf(spawner, task);
      const names = readFileSync(path.join(d, 'env.txt'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('=')[0])
        .sort();
      assert.deepEqual(names, ['ONLY', 'PATH']);
    });

    it('refuses what cannot start, with the reason', async () => {
      const spawner = new Spawner({ nativeSpawn });
      const d = dir();
      await assert.rejects(
        spawner.startDetached({ program: '/nonexistent/program', args: [], cwd: d, env: { PATH }, logFile: path.join(d, 'log') }),
        /ENOENT/,
      );
      await assert.rejects(
        spawner.startDetached({ program: '/bin/true', args: [], cwd: d, env: { PATH }, logFile: path.join(d, 'no', 'such', 'dir', 'log') }),
        /ENOENT/,
      );
      // A working directory that is a file: the start throws (ENOTDIR) instead of emitting 'error'; the spawner stays.
      const before = spawner.pid;
      const file = path.join(d, 'a-file');
      writeFileSync(file, '');
      await assert.rejects(
        spawner.startDetached({ program: '/bin/true', args: [], cwd: file, env: { PATH }, logFile: path.join(d, 'log') }),
        /ENOTDIR/,
      );
      assert.equal(spawner.pid, before, 'the same spawner process');
    });
    it('sets a task up as a detached start should: its own session, signals at their defaults, stdin /dev/null, none of its descriptors', async () => {
      const spawner = new Spawner({ nativeSpawn });
      // The spawner ignores SIGPIPE (Node does); the task must not. /proc tells the rest. The masks are
      // read by the task's own process (grep exec'd in its place): dash blocks every signal around
      // each fork, so a child reading its shell's /proc/<pid>/status may see that moment's mask.
      const { log, request } = shTask(
        'echo "session $(cut -d" " -f6 /proc/$$/stat) of $$"; ls -l /proc/$$/fd | sed -n "s/.* \\([0-9]*\\) -> \\(.*\\)/fd \\1 \\2/p"; exec grep -E "^(SigBlk|SigIgn):" /proc/self/status',
      );
      const task = await spawner.startDetached(request);
      assert.equal(await endOf(spawner, task), 'exited');
      assert.equal(task.exit.code, 0);
      const text = readFileSync(log, 'utf8');
      const mask = (name: string) => BigInt('0x' + (new RegExp(`^${name}:\\s*([0-9a-f]+)$`, 'm').exec(text)?.[1] ?? 'ffff'));
      assert.equal(mask('SigBlk'), 0n, text);
      // glibc's posix_spawn leaves its own two signals (32, 33) ignored; no other may be.
      assert.equal(mask('SigIgn') & ~0x180000000n, 0n, text);
      const fds = [...text.matchAll(/^fd (\d+) (.*)$/gm)].map((m) => ({ fd: Number(m[1]), to: m[2] }));
      assert.deepEqual(
        fds.filter((f) => f.fd <= 2).map((f) => f.to),
        ['/dev/null', log, log],
      );
      // Nothing of the spawner's own: its channel to the server, its event loop's descriptors, a pidfd.
      assert.deepEqual(
        fds.filter((f) => /socket:|anon_inode:/.test(f.to)),
        [],
        text,
      );
      assert.equal(/^session (\d+) of (\d+)$/m.exec(text)?.slice(1, 3).join(' '), `${task.pid} ${task.pid}`, text);
    });

    it("reports a task's exit code, and none when a signal ended it", async () => {
      const spawner = new Spawner({ nativeSpawn });
      const exits = await spawner.startDetached(shTask('exit 3').request);
      assert.equal(await endOf(spawner, exits), 'exited');
      assert.equal(exits.exit.code, 3);
      const killed = await spawner.startDetached(shTask('sleep 30').request);
      process.kill(killed.pid, 'SIGKILL');
      assert.equal(await endOf(spawner, killed), 'exited');
      assert.equal(killed.exit.code, null);
    });

    it('refuses a NUL byte in what it would start (it would cut the word short)', async () => {
      const spawner = new Spawner({ nativeSpawn });
      const { request } = shTask('true');
      await assert.rejects(spawner.startDetached({ ...request, args: ['-c', 'echo a\0rm -rf x'] }), /null bytes|NUL byte/);
      await assert.rejects(spawner.startDetached({ ...request, env: { PATH, X: 'a\0b' } }), /null bytes|NUL byte/);
    });
  });
}

describe('the spawner process', () => {
  it("notes at the server's start when tasks will not start through posix_spawn (the module is not built)", () => {
    assert.equal(nativeSpawnNote('auto'), null, 'built here: no note');
    assert.equal(nativeSpawnNote('off'), null, 'asked for: no note');
    const note = nativeSpawnNote('auto', path.join(dir(), 'posix-spawn.node'));
    assert.match(note ?? '', /^Note: job tasks start through Node's spawn, not posix_spawn \(Cannot find module .*posix-spawn\.node/);
  });

  it('captures a command: exit code, stdout and stderr; a missing program is a failed run, not a crash', async () => {
    const spawner = new Spawner();
    const ok = await spawner.capture('/bin/sh', ['-c', 'echo "$1"; echo warn >&2; exit 3', 'sh', 'a b'], {
      env: { PATH },
      timeoutMs: 30_000,
      maxBuffer: 1024,
    });
    assert.deepEqual(ok, { code: 3, stdout: 'a b\n', stderr: 'warn\n' });
    const missing = await spawner.capture('/nonexistent/sbatch', [], { env: { PATH }, timeoutMs: 30_000, maxBuffer: 1024 });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /ENOENT/);
  });

  it('when the spawner dies, running tasks keep running, their end is "unknown", and the next request starts a new spawner', async () => {
    const spawner = new Spawner();
    const d = dir();
    const task = await spawner.startDetached({ program: '/bin/sleep', args: ['30'], cwd: d, env: { PATH }, logFile: path.join(d, 'log') });
    const first = spawner.pid!;
    process.kill(first, 'SIGKILL');
    assert.equal(await endOf(spawner, task), 'unknown');
    assert.ok(isRunning(task.pid, task.startTime), 'the task outlives the spawner');
    const next = await spawner.capture('true', [], { env: { PATH }, timeoutMs: 30_000, maxBuffer: 1024 });
    assert.equal(next.code, 0);
    assert.notEqual(spawner.pid, first);
    process.kill(-task.pid, 'SIGKILL');
  });

  it("outlives a reply sent after the server's end of the channel closed (EPIPE): it drops the reply", async () => {
    const d = dir();
    const script = path.join(d, 'replies-late.mjs');
    const module = new URL('../../dist/executors/spawner/spawner-messages.js', import.meta.url).href;
    // The child is busy (as the spawner is, handling a task's exit) while the server closes the
    // channel: it has not seen the 'disconnect' yet when it replies, and the write fails with EPIPE.
    writeFileSync(
      script,
      `import { sendReply } from ${JSON.stringify(module)};\n` +
        `process.once('message', () => {\n` +
        `  const until = Date.now() + 500;\n` +
        `  while (Date.now() < until);\n` +
        `  sendReply(process, { type: 'exited', pid: 1 });\n` +
        `  setTimeout(() => console.log('still here'), 100);\n` +
        `});\n` +
        `process.send('ready');\n`,
    );
    const child = fork(script, [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const text = (stream: NodeJS.ReadableStream) =>
      new Promise<string>((resolve) => {
        let all = '';
        stream.on('data', (b) => (all += b));
        stream.on('end', () => resolve(all));
      });
    // 'close' is not emitted for a child whose channel the parent disconnected: its exit and its output's ends are awaited.
    const ended = Promise.all([new Promise((resolve) => child.once('exit', resolve)), text(child.stdout!), text(child.stderr!)]);
    await new Promise((resolve) => child.once('message', resolve));
    child.send('go', () => child.disconnect());
    const [code, stdout, stderr] = await ended;
    assert.equal(stderr, '', 'no uncaught error');
    assert.equal(code, 0);
    assert.equal(stdout.trim(), 'still here');
  });

  it('does not keep its server alive once nothing is asked or waited for', async () => {
    const d = dir();
    const script = path.join(d, 'uses-spawner.mjs');
    const module = new URL('../../dist/executors/spawner/spawner.js', import.meta.url).href;
    writeFileSync(
      script,
      `import { Spawner } from ${JSON.stringify(module)};\n` +
        `const s = new Spawner();\n` +
        `const t = await s.startDetached({ program: '/bin/true', args: [], cwd: ${JSON.stringify(d)}, env: { PATH: process.env.PATH }, logFile: ${JSON.stringify(path.join(d, 'log'))} });\n` +
        `const release = s.hold();\n` +
        `console.log(await t.ended);\n` +
        `release();\n`,
    );
    // Exits by itself (a spawner kept referenced would hold it until the timeout kills it).
    const { stdout } = await run(process.execPath, [script], { timeout: 60_000 });
    assert.equal(stdout.trim(), 'exited');
  });
});

describe('the spawner hands tasks none of the descriptors it inherited', { timeout: 60_000 }, () => {
  for (const native of ['auto', 'off']) {
    it(`a descriptor the server inherited without close-on-exec never reaches a task (native spawn ${native})`, async () => {
      const d = dir();
      const log = path.join(d, 'log.txt');
      writeFileSync(log, '');
      // As a server started by a launcher that leaves a descriptor open (a terminal's, a harness's pipe): the
      // shell opens fd 200 without close-on-exec and execs the spawner, which keeps it and its channel (fd 3).
      // (Node marks the low descriptors it finds at its start close-on-exec, not those far above them.)
      const entry = fileURLToPath(new URL('../../dist/executors/spawner/spawner-process.js', import.meta.url));
      const child = spawn(
        '/bin/bash',
        ['-c', 'exec 200>"$1"; exec "$2" --single-threaded "$3"', 'bash', path.join(d, 'stray.txt'), process.execPath, entry],
        { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { PATH, ...(native === 'off' && { RUNYARD_NATIVE_SPAWN: 'off' }) } },
      );
      try {
        const exited = new Promise<void>((resolve) =>
          child.on('message', (m: { type: string }) => {
            if (m.type === 'exited') resolve();
          }),
        );
        child.send({ type: 'detached', id: 1, program: '/bin/sh', args: ['-c', 'ls /proc/$$/fd'], cwd: d, env: { PATH }, logFile: log });
        await exited;
      } finally {
        child.kill();
      }
      // The shell's descriptors (ls lists its parent's): its stdio only.
      assert.deepEqual(readFileSync(log, 'utf8').split('\n').filter(Boolean).map(Number).sort(), [0, 1, 2]);
    });
  }
});
