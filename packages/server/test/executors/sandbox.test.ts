import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TaskSpec } from '../../src/executors/executor.js';
import { LocalExecutor } from '../../src/executors/local.js';
import { bwrapArgv, bwrapStatusArgv, ETC_ENTRIES, heldInputs } from '../../src/executors/sandbox/bwrap.js';
import { INHERITED_FD_BASE } from '../../src/executors/spawner/spawner-messages.js';
import { createSandbox, SandboxError, UNCONFINED_NOTE, type SandboxSettings } from '../../src/executors/sandbox/sandbox.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const SETTINGS: SandboxSettings = { sandbox: 'bwrap', taskNetwork: 'host', taskPath: PATH };

/** A job-like layout: the task's own directories, and next to them what it must not see. */
function layout() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'runyard-sandbox-'));
  const dirs = {
    root,
    work: path.join(root, 'job', 'work'),
    results: path.join(root, 'job', 'results'),
    input: path.join(root, 'inputs', 'in.txt'),
    secret: path.join(root, 'secret.txt'),
    log: path.join(root, 'job', 'logs', 'stdout.txt'),
  };
  mkdirSync(path.dirname(dirs.input), { recursive: true });
  writeFileSync(dirs.input, 'INPUT\n');
  writeFileSync(dirs.secret, 'SECRET\n');
  return dirs;
}

/** The slirp4netns processes that connect the network namespace of the task whose wrapper had this pid. */
function slirpsOf(pid: number): string[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes(`/proc/${pid}/ns/net`);
      } catch {
        return false;
      }
    });
}

async function run(
  settings: SandboxSettings,
  script: string,
  env: Record<string, string> = {},
  etcCopies?: string,
  netFifos?: string,
  whileRunning?: (wrapperPid: number) => void,
  pooled = true,
) {
  const d = layout();
  const task: TaskSpec = {
    argv: ['bash', '-c', script, 'job'],
    env: { PATH, SECRET_FILE: d.secret, INPUT: d.input, RESULTS: d.results, ...env },
    cwd: d.work,
    writable: [d.results],
    readable: [d.input],
    logFile: d.log,
  };
  const sandbox = createSandbox(settings, etcCopies, netFifos);
  // pooled false: the task makes its own namespace, as one whose port the server reaches does (network-pool.test.ts tests the pool).
  const executor = new LocalExecutor(50, pooled ? sandbox : { ...sandbox, lease: undefined });
  const control = { dir: path.join(d.root, 'control'), attempt: 1 };
  const launched = await executor.launch(task, control);
  const watch = whileRunning && setInterval(() => whileRunning(launched.pid), 50);
  const end = await executor.wait(control, launched).finally(() => clearInterval(watch));
  return { end, log: readFileSync(d.log, 'utf8'), d, pid: launched.pid };
}

describe('sandbox (bwrap)', { timeout: 120_000 }, () => {
  /** The top-level names of /etc that a task sees: those of its allow-list that the host has. */
  const etcNames = [...new Set(ETC_ENTRIES.filter((e) => existsSync(`/etc/${e}`)).map((e) => e.split('/')[0]))].sort();

  async function confinement(etcCopies?: string) {
    const { end, log, d } = await run(
      SETTINGS,
      [
        'echo work > w.txt && echo RESULT > "$RESULTS/r.txt" && echo wrote',
        'cat "$INPUT"',
        '{ echo x >> "$INPUT"; } 2>/dev/null || echo input-read-only',
        'cat "$SECRET_FILE" 2>/dev/null || echo secret-hidden',
        'touch /usr/x 2>/dev/null || echo usr-read-only',
        'mkdir /new 2>/dev/null || echo root-read-only',
        'test -e /etc/shadow || echo no-shadow',
        // The host's TLS keys (Debian: /etc/ssl/private; RHEL: /etc/pki/tls/private), readable to a task of a root server as their owner.
        'test -e /etc/ssl/private || test -e /etc/pki/tls/private || echo no-tls-keys',
        'test -s /etc/ssl/certs/ca-certificates.crt && echo tls-roots',
        'echo "uid=$(id -u)"',
        'ls -A /etc | sort | tr "\\n" " "; echo',
        'sha256sum < /etc/passwd | cut -c1-64',
        'touch /etc/x 2>/dev/null || echo etc-read-only',
        'ls /proc | grep -c "^[0-9]"',
      ].join('\n'),
      {},
      etcCopies,
    );
    assert.deepEqual(end, { state: 'exited', exitCode: 0 });
    const lines = log.trim().split('\n');
    assert.deepEqual(lines.slice(0, -1), [
      'wrote',
      'INPUT',
      'input-read-only',
      'secret-hidden',
      'usr-read-only',
      'root-read-only',
      'no-shadow',
      'no-tls-keys',
      // The TLS roots stay visible (Debian's bundle, where the host has it).
      ...(existsSync('/etc/ssl/certs/ca-certificates.crt') ? ['tls-roots'] : []),
      'uid=65534',
      `${etcNames.join(' ')} `,
      // The host's users, as they are now.
      createHash('sha256').update(readFileSync('/etc/passwd')).digest('hex'),
      'etc-read-only',
    ]);
    // bwrap's init, bash, and the pipeline's ls and grep: no process of the server or of other tasks.
    assert.ok(Number(lines.at(-1)) <= 4, `the task saw ${lines.at(-1)} processes`);
    assert.equal(readFileSync(path.join(d.results, 'r.txt'), 'utf8'), 'RESULT\n');
    assert.equal(readFileSync(path.join(d.work, 'w.txt'), 'utf8'), 'work\n');
    assert.equal(readFileSync(d.input, 'utf8'), 'INPUT\n');
  }

  it('the task writes its own directories, reads its inputs, and sees nothing else of the machine', () => confinement());

  it('the same with /etc as one copy of its entries (the local executor of a server)', async () => {
    const copies = mkdtempSync(path.join(os.tmpdir(), 'runyard-etc-copies-'));
    await confinement(copies);
    assert.equal(readdirSync(copies).filter((n) => n.startsWith('etc-')).length, 1);
  });

  it('a process that left the task process group (setsid) ends with the task: the sandbox ends as a whole', async () => {
    const { end } = await run(SETTINGS, 'setsid sleep 301.25 & sleep 0.2; echo started');
    assert.deepEqual(end, { state: 'exited', exitCode: 0 });
    const left = readdirSync('/proc').filter((pid) => {
      try {
        return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u0000301.25\u0000';
      } catch {
        return false;
      }
    });
    assert.deepEqual(left, []);
  });

  it('a private /tmp: what the host keeps there is not visible', async () => {
    const hostFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-hosttmp-')), 'host.txt');
    writeFileSync(hostFile, 'HOST\n');
    // A PATH of system directories only: directories of the test's own PATH (a checkout under /tmp) would be bound too.
    const { log, d } = await run(SETTINGS, `cat ${JSON.stringify(hostFile)} 2>/dev/null || echo hidden; ls /tmp`, {
      PATH: '/usr/local/bin:/usr/bin:/bin',
    });
    // Only the path to the task's own directories (this test keeps them under /tmp).
    assert.equal(log, `hidden\n${path.basename(d.root)}\n`);
  });

  it('the task gets exactly the environment given', async () => {
    const { log } = await run(SETTINGS, 'env | cut -d= -f1 | sort', { ONLY: 'this' });
    const vars = log.trim().split('\n');
    assert.deepEqual(
      vars.filter((v) => !['PWD', 'SHLVL', '_'].includes(v)),
      ['INPUT', 'ONLY', 'PATH', 'RESULTS', 'SECRET_FILE'],
    );
  });

  it('RUNYARD_TASK_NETWORK=none: only a loopback of its own', async () => {
    const none = await run({ ...SETTINGS, taskNetwork: 'none' }, 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "');
    assert.equal(none.log, 'lo\n');
    const host = await run(SETTINGS, 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "');
    assert.notEqual(host.log, 'lo\n');
  });

  it('RUNYARD_TASK_NETWORK=outbound: a loopback and a tap of its own, slirp4netns as resolver, and nothing left running after it', async () => {
    for (const fifos of [undefined, mkdtempSync(path.join(os.tmpdir(), 'runyard-fifos-'))]) {
      const seen: number[] = [];
      const { log, pid } = await run(
        { ...SETTINGS, taskNetwork: 'outbound' },
        'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | sort; grep nameserver /etc/resolv.conf; sleep 0.5',
        {},
        fifos,
        fifos,
        (wrapper) => seen.push(slirpsOf(wrapper).length),
        false,
      );
      // While it ran, one slirp4netns connected it.
      assert.ok(seen.includes(1), `slirp4netns processes seen while it ran: ${seen.join(', ')}`);
      assert.equal(log, 'lo\ntap0\nnameserver 10.0.2.3\n');
      // The FIFOs that started it are gone.
      if (fifos)
        assert.deepEqual(
          readdirSync(fifos).filter((f) => f.startsWith('runyard-net-')),
          [],
        );
      // slirp4netns ends with the sandbox (its exit FIFO's writers are gone).
      for (let i = 0; i < 100 && slirpsOf(pid).length; i++) await sleep(50);
      assert.deepEqual(slirpsOf(pid), []);
    }
  });

  it('RUNYARD_SANDBOX=none runs the task as it is, and its log says so first', async () => {
    const { log } = await run({ ...SETTINGS, sandbox: 'none' }, 'cat "$SECRET_FILE"; echo "uid=$(id -u)"');
    assert.equal(log, `${UNCONFINED_NOTE}\nSECRET\nuid=${process.getuid!()}\n`);
  });

  it(
    "binds the task's PATH directories outside /usr, but not those under a top-level link into /usr (/bin on merged-/usr systems)",
    {
      skip: lstatSync('/bin').isSymbolicLink() ? false : '/bin is not a symbolic link here',
    },
    () => {
      const task: TaskSpec = {
        argv: ['sh'],
        env: { PATH: '/usr/local/bin:/usr/bin:/bin:/opt/tools/bin' },
        cwd: '/tmp',
        logFile: '/tmp/log',
      };
      const argv = bwrapArgv('/usr/bin/bwrap', task, { network: 'host', launcher: null });
      const binds = argv.flatMap((a, i) => (a === '--ro-bind-try' && !argv[i + 1].startsWith('/etc/') ? [argv[i + 1]] : []));
      assert.deepEqual(binds, ['/opt/tools/bin']);
      // /bin is there all the same: the same link into the bound /usr.
      const link = argv.findIndex((a, i) => a === '--symlink' && argv[i + 2] === '/bin');
      assert.ok(link > 0, argv.join(' '));
    },
  );

  it('binds a directory named twice the same way once, and keeps a read-only input inside a writable one read-only', () => {
    const task: TaskSpec = {
      argv: ['sh'],
      env: { PATH: '/usr/bin' },
      cwd: '/srv/job/work',
      writable: ['/srv/job/work', '/srv/job/logs/', '/srv/job/work'],
      readable: ['/srv/job/work/input', '/srv/job/work/input'],
      logFile: '/srv/job/logs/log',
    };
    const argv = bwrapArgv('/usr/bin/bwrap', task, { network: 'host', launcher: null });
    const binds = argv.flatMap((a, i) =>
      a === '--bind' || (a === '--ro-bind-try' && argv[i + 1].startsWith('/srv/')) ? [`${a} ${argv[i + 1]}`] : [],
    );
    assert.deepEqual(binds, ['--bind /srv/job/work', '--bind /srv/job/logs', '--ro-bind-try /srv/job/work/input']);
  });

  it('inputs the server holds open are bound from the fds the spawner hands on, on this host', () => {
    const task: TaskSpec = {
      argv: ['sh'],
      env: { PATH: '/usr/bin' },
      cwd: '/srv/job/work',
      readable: ['/srv/store/b/reads.fq', '/srv/store/b/lanes', '/srv/job/control'],
      bindSources: { '/srv/store/b/reads.fq': '/proc/1/fd/40', '/srv/store/b/lanes': '/proc/1/fd/41' },
      logFile: '/srv/job/logs/log',
    };
    assert.deepEqual(heldInputs(task), [
      { dest: '/srv/store/b/lanes', source: '/proc/1/fd/41', fd: INHERITED_FD_BASE },
      { dest: '/srv/store/b/reads.fq', source: '/proc/1/fd/40', fd: INHERITED_FD_BASE + 1 },
    ]);
    const binds = (argv: string[]) =>
      argv.flatMap((a, i) =>
        /^--ro-bind(-try|-fd)$/.test(a) && argv[i + 2]?.startsWith('/srv/') ? [`${a} ${argv[i + 1]} ${argv[i + 2]}`] : [],
      );
    assert.deepEqual(binds(bwrapStatusArgv('/usr/bin/bwrap', task, { network: 'host', launcher: null }, 3)), [
      '--ro-bind-try /srv/job/control /srv/job/control',
      `--ro-bind-fd ${INHERITED_FD_BASE + 1} /srv/store/b/reads.fq`,
      `--ro-bind-fd ${INHERITED_FD_BASE} /srv/store/b/lanes`,
    ]);
  });

  it("a task of another host (Slurm's argv) opens its held inputs where it runs, checked to be the files the server checked, and binds those", () => {
    const d = layout();
    const lanes = path.join(d.root, 'inputs', 'lanes');
    mkdirSync(lanes);
    writeFileSync(path.join(lanes, 'l1.fq'), 'LANE1\n');
    // The server's handles: here this process's own fds, through /proc as the attempt runner names them.
    const handles = [d.input, lanes].map((p) => openSync(p, 'r'));
    const task: TaskSpec = {
      argv: ['bash', '-c', 'cat "$INPUT" "$LANES/l1.fq"'],
      env: { PATH, INPUT: d.input, LANES: lanes },
      cwd: d.work,
      readable: [d.input, lanes],
      bindSources: { [d.input]: `/proc/${process.pid}/fd/${handles[0]}`, [lanes]: `/proc/${process.pid}/fd/${handles[1]}` },
      logFile: d.log,
    };
    mkdirSync(d.work, { recursive: true });
    const run = () => {
      const argv = createSandbox(SETTINGS).argv(task);
      return spawnSync(argv[0]!, argv.slice(1), { cwd: d.work, env: task.env, encoding: 'utf8' });
    };
    try {
      const argv = createSandbox(SETTINGS).argv(task);
      assert.equal(argv[3], 'runyard-inputs');
      const text = argv.join(' ');
      assert.ok(text.includes(`--ro-bind-fd ${INHERITED_FD_BASE} ${d.input}`), text);
      assert.ok(text.includes(`--ro-bind-fd ${INHERITED_FD_BASE + 1} ${lanes}`), text);
      assert.ok(!text.includes(`--ro-bind-try ${d.input}`), text);
      const ok = run();
      assert.equal(ok.status, 0, ok.stderr);
      assert.equal(ok.stdout, 'INPUT\nLANE1\n');
      // A running task of the workspace swaps the input's path for a link to a file of the host: refused, nothing read.
      renameSync(d.input, `${d.input}.moved`);
      symlinkSync(d.secret, d.input);
      const swapped = run();
      assert.equal(swapped.status, 125);
      assert.match(swapped.stderr, new RegExp(`Runyard: the input ${d.input} is not the file the server checked`));
      assert.doesNotMatch(swapped.stdout, /SECRET/);
    } finally {
      handles.forEach((fd) => closeSync(fd));
    }
  });

  it('bwrap missing: an error that names the setting, never a fallback to the host', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'runyard-nobwrap-'));
    assert.throws(
      () => createSandbox({ ...SETTINGS, taskPath: empty }),
      (e: Error) => {
        assert.ok(e instanceof SandboxError);
        assert.match(e.message, /RUNYARD_SANDBOX/);
        return true;
      },
    );
  });
});
