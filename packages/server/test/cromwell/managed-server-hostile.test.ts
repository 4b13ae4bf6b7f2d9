import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FIXTURE_BIN } from '../../../../test/support/running-server.js';
import { settleEngineServers } from '../../src/services/engine-servers.js';
import { isPathInside } from '../../src/storage/local.js';
import { waitFor } from '../scheduler/helpers.js';
import { startWdlWorld, type WdlWorld } from '../wdl/wdl-world.js';
import { buildJavaFixture, FIXTURE_JAR, managedServer } from './managed-world.js';

/**
 * The Cromwell server that Runyard runs (RUNYARD_CROMWELL_JAR) against its own calls: they are
 * tenant code, run in its sandbox, and can change whatever it can write. Here `java` on the task
 * PATH is a shell script that does first what such a call could do (as the sandbox's user, in the
 * sandbox), then runs the stand-in Cromwell (test/support/cromwell-fixture/java.ts) or exits. The
 * server must never follow what it planted: its log, control files and the jobs' inputs are
 * outside everything the sandbox writes.
 */

/** A job id that no job has, in the form of the inputs directories' names (<job>-<attempt>). */
const FAKE_INPUTS = `${'a'.repeat(24)}-1`;

describe("the managed Cromwell server's calls cannot reach the server's files", { timeout: 300_000 }, () => {
  let scratch: string;
  let bin: string;
  let w: WdlWorld;
  /** Files outside every sandbox that a planted link names. */
  let secret: string;
  let precious: string;
  let outside: string;

  const { running, stopped, answers, engineDir, runDir } = managedServer(() => w);
  /** `java` becomes a script: these lines (the paths it needs set first), then whatever they end with. */
  const javaDoes = (lines: string[]) => {
    const vars = { DIR: engineDir(), RUN: runDir(), SECRET: secret, PRECIOUS: precious, OUTSIDE: outside, BIN: bin };
    const head = Object.entries(vars).map(([k, v]) => `${k}='${v}'`);
    writeFileSync(path.join(bin, 'java'), ['#!/bin/sh', ...head, ...lines, ''].join('\n'), { mode: 0o755 });
  };
  const runsFixture = 'exec "$BIN/java-fixture" "$@"';
  const outsideIntact = () => {
    assert.equal(readFileSync(path.join(outside, FAKE_INPUTS, 'keep.txt'), 'utf8'), 'keep me\n');
    assert.deepEqual(readdirSync(outside).sort(), [FAKE_INPUTS]);
  };

  before(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-hostile-cromwell-'));
    bin = path.join(scratch, 'bin');
    mkdirSync(bin);
    await buildJavaFixture(path.join(bin, 'java-fixture'));
    const jar = path.join(scratch, 'cromwell-86.jar');
    writeFileSync(jar, FIXTURE_JAR);
    secret = path.join(scratch, 'secret.txt');
    writeFileSync(secret, 'TOP-SECRET-not-for-the-status\n', { mode: 0o600 });
    precious = path.join(scratch, 'precious.txt');
    writeFileSync(precious, 'precious bytes\n', { mode: 0o600 });
    outside = path.join(scratch, 'outside');
    mkdirSync(path.join(outside, FAKE_INPUTS), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(outside, FAKE_INPUTS, 'keep.txt'), 'keep me\n');
    w = await startWdlWorld({
      RUNYARD_WDL_ENGINE: 'cromwell',
      RUNYARD_CROMWELL_JAR: jar,
      RUNYARD_TASK_PATH: [bin, FIXTURE_BIN, process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter),
    });
  });
  after(async () => {
    await w.api('PUT', `/api/v1/cromwell/stop?teamId=${w.ws}`);
    await w.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('a log and control files swapped for links before it exits: the status shows its own log, and nothing is written through them', async () => {
    // Wherever it can reach them: its working directory (where earlier versions kept them), its directory, the server's.
    javaDoes([
      'for log in cromwell.log "$DIR/cromwell.log" "$RUN/cromwell.log"; do',
      '  rm -f "$log" 2>/dev/null; ln -s "$SECRET" "$log" 2>/dev/null',
      'done',
      'for control in control "$DIR/control" "$RUN/control"; do',
      '  n=$(ls "$control" 2>/dev/null | sed -n "s/^attempt-\\([0-9]*\\)\\.pid$/\\1/p" | sort -n | tail -n 1)',
      '  [ -n "$n" ] && for ext in oom limits exit; do ln -sf "$PRECIOUS" "$control/attempt-$n.$ext"; done',
      'done',
      "echo 'hostile java: links planted'",
      // As if killed (SIGKILL): the executor then asks whether it was for its memory.
      'exit 137',
    ]);
    const started = await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
    assert.equal(started.status, 'Starting');
    const server = await stopped();
    assert.match(server.statusMessage, /^The Cromwell server did not start: it exited with code 137; its log ends with:\n/);
    assert.match(server.statusMessage, /hostile java: links planted$/);
    assert.doesNotMatch(server.statusMessage, /TOP-SECRET/);
    assert.doesNotMatch(server.statusMessage, /out of memory/);
    assert.equal(readFileSync(precious, 'utf8'), 'precious bytes\n');
    assert.equal(readFileSync(secret, 'utf8'), 'TOP-SECRET-not-for-the-status\n');
    // Its log and control files are the server's, outside what the sandbox writes (cwd and writable binds are in dir).
    assert.ok(!isPathInside(engineDir(), runDir()));
    assert.ok(lstatSync(path.join(runDir(), 'cromwell.log')).isFile());
    const records = readdirSync(path.join(runDir(), 'control')).filter((f) => /^attempt-\d+\.pid$/.test(f));
    assert.ok(records.length >= 1);
    for (const f of readdirSync(path.join(runDir(), 'control')))
      assert.ok(!lstatSync(path.join(runDir(), 'control', f)).isSymbolicLink(), f);
  });

  it('its view: the control files and log hidden, the inputs read-only, its directories fixed; a planted inputs link is never followed', async () => {
    javaDoes([
      '{',
      '  for what in "control:$RUN/control" "log:$RUN/cromwell.log" "inputs:$RUN/inputs"; do',
      '    if [ -e "${what#*:}" ]; then echo "${what%%:*}: visible"; else echo "${what%%:*}: hidden"; fi',
      '  done',
      '  if touch "$RUN/inputs/planted" 2>/dev/null; then echo "inputs: writable"; else echo "inputs: not writable"; fi',
      '  if mv "$DIR/cromwell-executions" "$DIR/moved" 2>/dev/null; then echo "executions: moved"; else echo "executions: fixed"; fi',
      '} > probe.txt',
      // Where earlier versions kept the jobs' inputs (its working directory): a link to a directory outside.
      'rm -rf inputs "$DIR/inputs" 2>/dev/null',
      'ln -s "$OUTSIDE" inputs',
      'ln -s "$OUTSIDE" "$DIR/inputs" 2>/dev/null',
      runsFixture,
    ]);
    await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
    const server = await running();
    // The sweep removes the inputs of jobs that no longer run: nothing outside is listed or removed.
    await settleEngineServers(w.s.store.db, w.s.config);
    outsideIntact();
    const probe = readFileSync(path.join(engineDir(), 'home', 'probe.txt'), 'utf8');
    assert.equal(probe, 'control: hidden\nlog: hidden\ninputs: visible\ninputs: not writable\nexecutions: fixed\n');
    assert.ok(lstatSync(path.join(engineDir(), 'cromwell-executions')).isDirectory());
    assert.ok(await answers(server.url));
  });

  it("its calls reach neither the host's loopback nor slirp's gateway nor the metadata address; Runyard reaches it through the forward", async () => {
    await w.ok('PUT', `/api/v1/cromwell/stop?teamId=${w.ws}`);
    await stopped();
    const api = new URL(w.s.url).port;
    // In the background once Cromwell answers on its own port (which shows a probe can succeed), as a call would.
    javaDoes([
      `API=${api}`,
      'probe() { if timeout 5 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; then echo "$1:$2 reached"; else echo "$1:$2 refused"; fi; }',
      'port=$(printf "%s\\n" "$@" | sed -n "s/^-Dwebservice.port=//p")',
      '(',
      '  n=0; until probe 127.0.0.1 "$port" | grep -q reached || [ $n -ge 1200 ]; do n=$((n+1)); sleep 0.1; done',
      '  { probe 127.0.0.1 "$port" | sed "s/$port/own/"; probe 127.0.0.1 "$API"; probe 10.0.2.2 "$API"; probe 10.0.2.2 "$port"; probe 169.254.169.254 80; } > net-probe.part',
      '  mv net-probe.part net-probe.txt',
      ') &',
      runsFixture,
    ]);
    await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
    const server = await running();
    assert.equal(server.url, `http://127.0.0.1:${server.managedProcess.port}`);
    assert.ok(await answers(server.url));
    const file = path.join(engineDir(), 'home', 'net-probe.txt');
    const probe = await waitFor(
      "the calls' network probes",
      async () => (existsSync(file) ? readFileSync(file, 'utf8') : undefined),
      120_000,
    );
    const port = server.managedProcess.port;
    assert.equal(
      probe,
      [
        '127.0.0.1:own reached',
        `127.0.0.1:${api} refused`,
        `10.0.2.2:${api} refused`,
        `10.0.2.2:${port} refused`,
        '169.254.169.254:80 refused',
        '',
      ].join('\n'),
    );
  });

  it('a server an earlier version started is stopped when found; what it left is removed at the next start, links not followed', async () => {
    const first = await running();
    // A record of an earlier version: no runDir, its files in dir.
    const row = await w.s.store.db
      .selectFrom('engine_servers')
      .select('process_json')
      .where('workspace_id', '=', w.ws)
      .executeTakeFirstOrThrow();
    const earlier = JSON.parse(row.process_json!) as Record<string, unknown>;
    delete earlier.runDir;
    await w.s.store.db
      .updateTable('engine_servers')
      .set({ process_json: JSON.stringify(earlier) })
      .where('workspace_id', '=', w.ws)
      .execute();
    const server = await stopped();
    assert.match(server.statusMessage, /^The Cromwell server stopped: it was started by an earlier version of Runyard/);
    assert.equal(await answers(first.url), false);
    // What its calls could have left in dir: control/ and inputs/ as links outside, a directory of Cromwell's as a link.
    const dir = engineDir();
    rmSync(path.join(dir, 'inputs'), { recursive: true, force: true });
    symlinkSync(outside, path.join(dir, 'inputs'));
    symlinkSync(outside, path.join(dir, 'control'));
    rmSync(path.join(dir, 'cromwell-workflow-logs'), { recursive: true, force: true });
    symlinkSync(outside, path.join(dir, 'cromwell-workflow-logs'));
    javaDoes([runsFixture]);
    await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
    const again = await running();
    assert.ok(await answers(again.url));
    outsideIntact();
    assert.equal(existsSync(path.join(dir, 'inputs')), false);
    assert.equal(existsSync(path.join(dir, 'control')), false);
    assert.ok(lstatSync(path.join(dir, 'cromwell-workflow-logs')).isDirectory());
  });
});
