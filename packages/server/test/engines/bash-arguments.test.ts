// How a bash job's command runs as written, and its parameters reach it: appended (or, where they cannot be, as
// "$@"), exactly, as data, and on no process's command line (T10, T11).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { loadConfig, type Config } from '../../src/config.js';
import { POSITIONAL_NOTE } from '../../src/engines/bash-arguments.js';
import { containerEngine } from '../../src/engines/container.js';
import type { TaskSpec } from '../../src/executors/executor.js';
import { LocalExecutor, type LocalId } from '../../src/executors/local.js';
import { groupMembers } from '../../src/executors/proc.js';
import { allCmdlines, cmdlinesHolding } from './cmdlines.js';
import { jobRow, pathsFor, workflowRow } from './rows.js';

const IMAGE = 'quay.io/org/tool:1.0';

/**
 * A directory with a `docker` that runs `docker run` as the real one would, without a daemon: it
 * keeps only the variables named by `-e NAME` (docker takes their values from its own environment),
 * skips the other options up to the image, and runs the rest as its child, staying alive meanwhile.
 */
function runnableDocker(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-rt-'));
  const script = [
    '#!/bin/bash',
    // After the task, the executor asks whether the container was killed for its memory and removes it:
    // neither happened here (and a loop over arguments without the image would never end).
    'if [ "$1" = inspect ]; then echo false; exit 0; fi',
    'if [ "$1" = rm ]; then exit 0; fi',
    'keep=" PATH "',
    `while [ $# -gt 0 ] && [ "$1" != '${IMAGE}' ]; do`,
    '  if [ "$1" = -e ]; then keep+="$2 "; shift; fi',
    '  shift',
    'done',
    `[ $# -gt 0 ] || { echo 'docker: no image ${IMAGE} in the arguments' >&2; exit 125; }`,
    'shift',
    'for v in $(compgen -e); do [[ $keep == *" $v "* ]] || unset "$v"; done',
    '"$@"',
  ].join('\n');
  writeFileSync(path.join(dir, 'docker'), `${script}\n`);
  chmodSync(path.join(dir, 'docker'), 0o755);
  return dir;
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-args-'));
const onHost = loadConfig({ RUNYARD_DATA_DIR: dataDir, PATH: process.env.PATH, RUNYARD_JOB_IMAGES: 'host' });
const inDocker: Config = { ...onHost, containerRuntime: 'docker', taskPath: `${runnableDocker()}:${process.env.PATH}` };
const where = [
  { name: 'on the host', config: onHost },
  { name: 'through a container runtime', config: inDocker },
];

async function prepare(config: Config, command: string, params: { name: string; textValue: string }[]) {
  const paths = pathsFor();
  for (const dir of [paths.work, paths.logs, paths.results]) mkdirSync(dir, { recursive: true });
  const task = await containerEngine.prepare(jobRow({ command, params }), workflowRow({ container_name: IMAGE }), paths, config);
  return { paths, task };
}

async function run(task: TaskSpec, control: { dir: string; attempt: number }) {
  const executor = new LocalExecutor();
  const end = await executor.wait(control, await executor.launch(task, control));
  assert.deepEqual(end, { state: 'exited', exitCode: 0 }, readFileSync(task.logFile, 'utf8'));
}

describe('bash job arguments', { timeout: 300_000 }, () => {
  for (const { name, config } of where) {
    it(`T11 ${name}: a secret parameter is on no command line of the machine while the job runs; the job gets it appended to its command and as RUNYARD_PARAM_*`, async () => {
      const secret = `canary-${randomUUID()}`;
      const { paths, task } = await prepare(
        config,
        'echo "env=<$RUNYARD_PARAM_TOKEN>"; touch ready; while [ ! -e done ]; do sleep 0.05; done; printf "arg=<%s>\\n"',
        [{ name: 'token', textValue: secret }],
      );
      assert.equal(config === inDocker, task.argv[0].endsWith('/docker'));
      const control = { dir: paths.control, attempt: 1 };
      const executor = new LocalExecutor();
      const id = (await executor.launch(task, control)) as LocalId;
      try {
        const deadline = Date.now() + 120_000;
        while (!existsSync(path.join(paths.work, 'ready'))) {
          assert.ok(Date.now() < deadline, readFileSync(task.logFile, 'utf8'));
          await sleep(20);
        }
        // The scan sees the job's own processes (the wrapper, or bwrap which it execs; runtime; shell), so its silence means something.
        const all = allCmdlines();
        const job = groupMembers(id.pid).map((pid) => all.get(pid) ?? '');
        const wrapper = (c: string) => c.includes('runyard-task') || /(^|\/)bwrap\0/.test(c);
        assert.ok(job.some(wrapper) && job.some((c) => c.includes('runyard-job')), job.join('\n'));
        assert.equal(
          job.some((c) => c.includes('/docker\0run\0')),
          config === inDocker,
        );
        assert.deepEqual(cmdlinesHolding(secret), []);
      } finally {
        writeFileSync(path.join(paths.work, 'done'), '');
      }
      assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
      const log = readFileSync(task.logFile, 'utf8');
      assert.ok(log.includes(`env=<${secret}>\narg=<--token>\narg=<${secret}>\n`), log);
    });

    it(`${name}: values round-trip exactly as appended arguments and RUNYARD_PARAM_*, stay data, and leave no RUNYARD_ARG_* or RUNYARD_COMMAND behind`, async () => {
      // Relative: an injected `touch` would create it in the task's work directory, which a sandboxed task may write.
      const marker = 'MARK';
      const values = [
        'line1\nline2',
        '\n',
        'trailing newline\n',
        `it's "quoted"`,
        `$(touch ${marker})`,
        `\`touch ${marker}\``,
        `; touch ${marker}`,
        '',
        ' ',
        '  two  spaces  ',
        'ünïcødé ✓ 日本語 🧬',
        'back\\slash\\',
        'tab\there\r',
        '-n',
        '--',
        '*',
        '$HOME ${!x} $1',
        '%s%d',
        'a=b',
      ];
      const params = values.map((v, i) => ({ name: `p${i}`, textValue: v }));
      const { paths, task } = await prepare(config, 'env -0 > env.bin; printf "%s\\0" > args.bin', params);
      assert.ok(!task.argv.some((a) => values.some((v) => v.length > 3 && a.includes(v))), task.argv.join(' '));
      await run(task, { dir: paths.control, attempt: 1 });
      const args = readFileSync(path.join(task.cwd, 'args.bin'), 'utf8').split('\0').slice(0, -1);
      assert.deepEqual(
        args,
        values.flatMap((v, i) => [`--p${i}`, v]),
      );
      const env = new Map(
        readFileSync(path.join(task.cwd, 'env.bin'), 'utf8')
          .split('\0')
          .slice(0, -1)
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      );
      values.forEach((v, i) => assert.equal(env.get(`RUNYARD_PARAM_P${i}`), v));
      assert.deepEqual(
        [...env.keys()].filter((k) => k.startsWith('RUNYARD_ARG') || k === 'RUNYARD_COMMAND' || k.startsWith('_runyard')),
        [],
      );
      assert.ok(!existsSync(path.join(task.cwd, marker)), 'a marker file appeared');
    });
  }

  /** Runs a bash job's command on the host; answers its exit code and log. */
  async function runOnHost(command: string, params: { name: string; textValue: string }[] = []) {
    const { paths, task } = await prepare(onHost, command, params);
    const control = { dir: paths.control, attempt: 1 };
    const executor = new LocalExecutor();
    const end = await executor.wait(control, await executor.launch(task, control));
    return {
      code: end.state === 'exited' ? end.exitCode : null,
      log: readFileSync(task.logFile, 'utf8').replace(/^Runyard: this job runs on the host.*\n/, ''),
    };
  }

  it('the command is line 1 of its error messages, with parameters or without; without, its "$@" is empty', async () => {
    const without = await runOnHost('echo "n=$#"; no-such-command-x');
    assert.equal(without.code, 127);
    assert.match(without.log, /^n=0\nrunyard-job: line 1: no-such-command-x: command not found\n$/);
    const withParams = await runOnHost('echo "n=$#"\nno-such-command-y', [{ name: 'p', textValue: '1' }]);
    assert.equal(withParams.code, 127);
    assert.match(withParams.log, /^n=0\nrunyard-job: line 2: no-such-command-y: command not found\n$/);
    const syntax = await runOnHost('echo one\nif true; then\n  echo two\n');
    assert.equal(syntax.code, 2);
    assert.match(syntax.log, /^one\nrunyard-job: eval: line 4: syntax error: unexpected end of file\n$/);
  });

  it('a command that ends in done runs as written; with parameters they are its positional parameters, and its log says so', async () => {
    const loop = 'for i in 1 2 3; do echo "tick $i"; done';
    const without = await runOnHost(loop);
    assert.deepEqual(without, { code: 0, log: 'tick 1\ntick 2\ntick 3\n' });
    const withParams = await runOnHost(`${loop}\nif [ "$1" = --n ]; then echo "n=$2 of $#"; fi`, [{ name: 'n', textValue: '5' }]);
    assert.equal(withParams.code, 0);
    assert.equal(withParams.log, `${POSITIONAL_NOTE}\ntick 1\ntick 2\ntick 3\nn=5 of 2\n`);
  });

  it('parameters are appended once: the command\'s own "$@" and $1 are then empty', async () => {
    const { code, log } = await runOnHost('echo "own=<$*> first=<$1>"; printf "[%s]"', [
      { name: 'a', textValue: '1' },
      { name: 'b', textValue: 'x y' },
    ]);
    assert.equal(code, 0);
    assert.equal(log, 'own=<> first=<>\n[--a][1][--b][x y]');
  });
});
