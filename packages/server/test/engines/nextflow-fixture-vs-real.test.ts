import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { fixtureNextflowHome } from '../../../../test/support/nextflow-home.js';
import { REAL_PIPELINE, realNextflow } from '../../../../test/support/real-nextflow.js';

const real = realNextflow();
/** The fixture (as scheduler/helpers.ts finds it, without importing what a database test needs: this file runs on the SQLite pass only). */
const FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/bin/nextflow');

interface Program {
  name: string;
  bin: string;
  home: string;
  version: string;
}

interface Outcome {
  status: number | null;
  /** stdout and stderr: Nextflow prints its errors to stdout, the fixture to stderr. */
  output: string;
}

/** Runs `nextflow ...args` in dir with the environment Runyard gives a task (nextflow-home.ts): the home read, nothing written to it. */
function launch(program: Program, dir: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Outcome> {
  const own = path.join(dir, '.nextflow');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    NXF_HOME: program.home,
    NXF_VER: program.version,
    NXF_LAUNCHER: path.join(own, 'launcher'),
    NXF_PLUGINS_DIR: path.join(own, 'plugins'),
    NXF_SECRETS_FILE: path.join(own, 'secrets', 'store.json'),
    NXF_ANSI_LOG: 'false',
    ...extraEnv,
  };
  const child = spawn(program.bin, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

/**
 * Runyard's command line (engines/nextflow.ts) and what it must avoid, run against the fixture and
 * against a real Nextflow: each case must end the same way (exit 0 or not) with the same message.
 * A first run (a YAML params file, a run name with capitals, a trace file) makes the history and
 * the trace the refusals need. Seven JVM starts of the real one, six of them refusals that end early (three at a time).
 */
describe('the nextflow fixture and a real Nextflow answer Runyard the same way', { timeout: 600_000 }, () => {
  const programs: Program[] = [{ name: 'fixture', bin: FIXTURE, home: fixtureNextflowHome(), version: '23.10.1' }];
  if (typeof real !== 'string') programs.push({ name: `nextflow ${real.version}`, bin: real.bin, home: real.home, version: real.version });
  const dirs = new Map<string, string>();
  before(() => {
    for (const program of programs) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-nf-vs-'));
      for (const [name, text] of Object.entries(REAL_PIPELINE)) writeFileSync(path.join(dir, name), text);
      writeFileSync(path.join(dir, 'params.yaml'), 'greeting: yo\nn: 1\noutdir: results\n');
      writeFileSync(path.join(dir, 'params.txt'), 'greeting = yo\n');
      mkdirSync(path.join(dir, 'logs'));
      dirs.set(program.name, dir);
    }
  });

  /** The same case for each program: its outcome, checked by `check`. */
  async function each(args: string[], check: (o: Outcome, program: Program, dir: string) => void): Promise<void> {
    for (const program of programs) {
      const dir = dirs.get(program.name)!;
      const outcome = await launch(program, dir, args);
      check(outcome, program, dir);
    }
  }
  const run = (...args: string[]) => ['-log', 'logs/.nextflow.log', 'run', 'main.nf', ...args];

  it('runs with a YAML -params-file, a run name with capitals and a trace file', async () => {
    await each(run('-params-file', 'params.yaml', '-name', 'First_Run', '-with-trace', 'logs/trace.txt'), (o, program, dir) => {
      assert.equal(o.status, 0, `${program.name}:\n${o.output}`);
      // The YAML's values reached the pipeline: the real one ran it, the fixture writes the params it read.
      if (program.name === 'fixture')
        assert.equal(JSON.parse(readFileSync(path.join(dir, 'results', 'result.txt'), 'utf8')).params.greeting, 'yo');
      else assert.equal(readFileSync(path.join(dir, 'results', 'merged.txt'), 'utf8'), 'YO 1\n');
      assert.match(readFileSync(path.join(dir, 'logs', 'trace.txt'), 'utf8'), /^task_id\thash\t/);
    });
  });

  // Each refusal ends before any task runs; they need only the first run's history and trace, so they start together, each in a copy of its launch directory.
  const refusals: [string, string[], RegExp, Record<string, string>?][] = [
    [
      'a run name the history has',
      run('-params-file', 'params.yaml', '-name', 'First_Run'),
      /Run name `First_Run` has been already used -- Specify a different one/,
    ],
    [
      'an existing trace file without trace.overwrite',
      run('-params-file', 'params.yaml', '-name', 'second', '-with-trace', 'logs/trace.txt'),
      /Trace file already exists: .*logs\/trace\.txt -- enable the 'trace.overwrite' option in your config file to overwrite existing files/,
    ],
    [
      'an unknown profile',
      run('-params-file', 'params.yaml', '-profile', 'small,nope', '-name', 'third'),
      /Unknown configuration profile: 'nope'/,
    ],
    [
      'a missing -c file',
      ['-c', 'nope.config', ...run('-params-file', 'params.yaml', '-name', 'fourth')],
      /The specified configuration file does not exist: .*nope\.config -- check the name or choose another file/,
    ],
    [
      'a params file that is neither JSON nor YAML',
      run('-params-file', 'params.txt', '-name', 'fifth'),
      /Not a valid params file extension: .*params\.txt -- It must be one of the following: json,yml,yaml/,
    ],
    // Nextflow makes the secrets store's directory at every run: in a home the task may not write
    // (Runyard's), unless NXF_SECRETS_FILE says elsewhere. Here the directory cannot be made (a file is in the way).
    [
      'a secrets store it cannot make',
      run('-params-file', 'params.yaml', '-name', 'sixth'),
      /Unable to load secrets provider/,
      { NXF_SECRETS_FILE: 'SECRETS_UNDER_A_FILE' },
    ],
  ];
  it(`refuses ${refusals.map(([what]) => what).join(', ')}`, async () => {
    const cases = programs.flatMap((program) => refusals.map((refusal) => ({ program, refusal })));
    // Three at a time: each real one is a JVM of a few hundred MB and seconds of CPU.
    const next = async (): Promise<void> => {
      const c = cases.shift();
      if (!c) return;
      const [what, args, message, env = {}] = c.refusal;
      // A launch directory of its own, a copy of the first run's: Nextflow locks .nextflow/history while it starts.
      const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-nf-vs-'));
      cpSync(dirs.get(c.program.name)!, dir, { recursive: true });
      const secrets = path.join(dir, 'params.yaml', 'secrets', 'store.json');
      const o = await launch(c.program, dir, args, env.NXF_SECRETS_FILE ? { NXF_SECRETS_FILE: secrets } : {});
      assert.notEqual(o.status, 0, `${c.program.name} refused ${what}:\n${o.output}`);
      assert.match(o.output, message, `${c.program.name}: ${what}`);
      return next();
    };
    await Promise.all([next(), next(), next()]);
  });

  it('with a real Nextflow', { skip: typeof real === 'string' ? real : false }, () => {
    assert.equal(programs.length, 2);
  });
});
