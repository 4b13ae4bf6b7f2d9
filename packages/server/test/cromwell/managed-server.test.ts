import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FIXTURE_BIN } from '../../../../test/support/running-server.js';
import { uploadFile } from '../../../../test/support/upload.js';
import { loadConfig } from '../../src/config.js';
import { getEngineServer, settleEngineServers } from '../../src/services/engine-servers.js';
import { waitFor } from '../scheduler/helpers.js';
import { startWdlWorld, type WdlWorld } from '../wdl/wdl-world.js';
import { buildJavaFixture, FIXTURE_JAR, managedServer } from './managed-world.js';

/**
 * The Cromwell server that Runyard runs itself (RUNYARD_CROMWELL_JAR), with the stand-in `java`
 * of managed-world.ts. It runs where the real one would: through the local executor, in the task
 * sandbox.
 */

/** count counts the lines of a File input, says whether the call can see a path, and joins the files a glob matches. */
const WDL = `version 1.0

task count {
  input {
    File reads
    String probe
    Array[File] globbed
  }
  command <<<
    wc -l < ~{reads} | tr -d ' ' > n.txt
    if [ -e ~{probe} ]; then echo visible; else echo hidden; fi > seen.txt
    cat ~{sep=" " globbed} > globbed.txt
  >>>
  output {
    File n = "n.txt"
    File seen = "seen.txt"
    File all = "globbed.txt"
  }
}

workflow reads {
  input {
    File reads
    String probe
    Array[File] globbed
  }
  call count { input: reads = reads, probe = probe, globbed = globbed }
  output {
    File n = count.n
    File seen = count.seen
    File all = count.all
  }
}
`;

describe('the Cromwell server Runyard runs (RUNYARD_CROMWELL_JAR)', { timeout: 300_000 }, () => {
  let scratch: string;
  let jar: string;
  let w: WdlWorld;
  let workflowId: string;

  const { status, running, answers, engineDir, runDir } = managedServer(() => w);

  before(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-managed-cromwell-'));
    const bin = path.join(scratch, 'bin');
    mkdirSync(bin);
    await buildJavaFixture(path.join(bin, 'java'));
    jar = path.join(scratch, 'cromwell-86.jar');
    writeFileSync(jar, FIXTURE_JAR);
    w = await startWdlWorld({
      RUNYARD_WDL_ENGINE: 'cromwell',
      RUNYARD_CROMWELL_JAR: jar,
      RUNYARD_TASK_PATH: [bin, FIXTURE_BIN, process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter),
    });
    const repo = w.mirror.create('acme/reads-wdl', { files: { 'main.wdl': WDL } });
    workflowId = (
      await w.ok('POST', `/api/v1/workflows?teamId=${w.ws}`, {
        name: 'reads-wdl',
        workflowType: 'wdl',
        mainFile: 'main.wdl',
        repository: { url: repo.url, platform: 'github' },
      })
    )._id;
  });
  after(async () => {
    // The server outlives Runyard's processes by design: the test stops it.
    await w.api('PUT', `/api/v1/cromwell/stop?teamId=${w.ws}`);
    await w.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("a jar the launcher refuses leaves the server Stopped with the launcher's error", async () => {
    writeFileSync(jar, 'not a zip');
    try {
      const started = await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
      assert.equal(started.status, 'Starting');
      const stopped = await waitFor('the start to fail', async () => {
        const server = await status();
        return server.status === 'Stopped' ? server : undefined;
      });
      assert.match(stopped.statusMessage, /^The Cromwell server did not start: it exited with code 1; its log ends with:\n/);
      assert.match(stopped.statusMessage, new RegExp(`Error: Invalid or corrupt jarfile ${jar.replace(/[.]/g, '\\.')}$`));
      assert.equal(stopped.managedProcess, undefined);
      const refused = await w.api('POST', `/api/v2/jobs?teamId=${w.ws}`, await w.body({}, { workflow: workflowId }));
      assert.equal(refused.status, 409, JSON.stringify(refused.json));
      assert.match(refused.json.message, /WDL engine server is stopped/);
    } finally {
      writeFileSync(jar, FIXTURE_JAR);
    }
  });

  it("restart starts it in the sandbox, on a network of its own reached through the host's 127.0.0.1; a restart while it runs keeps it", async () => {
    const started = await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
    assert.equal(started.status, 'Starting');
    assert.equal(started.managedProcess.host, os.hostname());
    const server = await running();
    assert.equal(server.url, `http://127.0.0.1:${server.managedProcess.port}`);
    assert.ok(await answers(server.url));
    const log = readFileSync(path.join(runDir(), 'cromwell.log'), 'utf8');
    // All addresses of its own namespace, where slirp4netns's forward from the host's 127.0.0.1 arrives.
    assert.match(log, new RegExp(`service started on 0\\.0\\.0\\.0:${server.managedProcess.port}\\.\\.\\.`));
    assert.match(log, new RegExp(`Local backend root ${engineDir()}/cromwell-executions`));
    const again = await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
    assert.deepEqual(again.managedProcess, server.managedProcess);
    assert.equal((await running()).url, server.url);
  });

  it('a restarted Runyard finds it again, running, or starting when the one before stopped while it started', async () => {
    const server = await running();
    // Another Runyard process on the same data: a configuration (and executor) of its own, which did not start the server.
    const later = loadConfig({ PATH: process.env.PATH, ...envOf(w) });
    assert.notEqual(later, w.s.config);
    const found = await getEngineServer(w.s.store.db, later, w.ws);
    assert.equal(found.status, 'Running');
    assert.deepEqual(found.managedProcess, server.managedProcess);
    // Left Starting by a process that is gone: the next reader follows the recorded process to Running.
    await w.s.store.db.updateTable('engine_servers').set({ status: 'Starting', url: null }).where('workspace_id', '=', w.ws).execute();
    assert.equal((await getEngineServer(w.s.store.db, later, w.ws)).status, 'Starting');
    const followed = await waitFor('the recorded server to be followed to Running', async () => {
      const s = await getEngineServer(w.s.store.db, later, w.ws);
      return s.status === 'Running' ? s : undefined;
    });
    assert.equal(followed.url, server.url);
    assert.deepEqual(followed.managedProcess, server.managedProcess);
  });

  it('a WDL job runs on it: File inputs from Data and a glob over a folder are read, the rest of the machine is hidden', async () => {
    const server = await running();
    const where = { workspaceId: w.ws, projectId: w.projectId };
    const readsId = await uploadFile(w.s.url, w.s.admin.apikey, where, 'reads.fq', '@r1\nACGT\n+\nIIII\n');
    const datasets = (await w.ok('GET', `/api/v2/datasets?projectId=${w.projectId}&teamId=${w.ws}`)).datasets;
    const data = datasets.find((d: { name: string }) => d.name === 'Data');
    const folder = await w.ok('POST', `/api/v1/folders/virtual?teamId=${w.ws}`, {
      name: 'lanes',
      parent: { kind: 'Dataset', id: data._id },
    });
    await uploadFileInto(w, folder._id, 'a.txt', 'lane A\n');
    await uploadFileInto(w, folder._id, 'b.txt', 'lane B\n');
    // The server's key (it sealed the engine token), on the host.
    const secret = w.s.config.secretKeyFile;
    const body = await w.body({}, { workflow: workflowId });
    body.parameters = [
      { prefix: '', name: 'reads.reads', parameterKind: 'dataItem', dataItem: { kind: 'File', item: readsId } },
      { prefix: '', name: 'reads.probe', parameterKind: 'textValue', textValue: secret },
      { prefix: '', name: 'reads.globbed', parameterKind: 'globPattern', globPattern: '*.txt', folder: folder._id },
    ];
    const jobId = (await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, body)).jobId;
    const job = await w.ended(jobId);
    assert.equal(job.status, 'completed', job.statusMessage);
    assert.equal(w.read(jobId, 'results', 'results/n.txt').trim(), '4');
    // The key is there on the host, not in the Cromwell server's sandbox.
    assert.ok(existsSync(secret));
    assert.equal(w.read(jobId, 'results', 'results/seen.txt').trim(), 'hidden');
    assert.equal(w.read(jobId, 'results', 'results/globbed.txt'), 'lane A\nlane B\n');
    assert.match(w.read(jobId, 'logs', 'stdout.txt'), /runs on the workspace's Cromwell server/);
    // Its calls ran in the server's own Local backend root.
    assert.ok(readdirSync(path.join(engineDir(), 'cromwell-executions', 'reads')).length >= 1);
    // The inputs moved in for the job are removed once it has ended.
    await settleEngineServers(w.s.store.db, w.s.config);
    assert.deepEqual(readdirSync(path.join(runDir(), 'inputs')), []);
    assert.ok(await answers(server.url));
  });

  it('a server whose process ended is found Stopped, with why; stop ends the process', async () => {
    const first = await running();
    // Another process kills it (the machine's OOM killer, an operator): its pid is in the executor's control files.
    const control = path.join(runDir(), 'control');
    const attempts = readdirSync(control)
      .map((f) => /^attempt-(\d+)\.pid$/.exec(f)?.[1])
      .filter((n) => n !== undefined)
      .map(Number);
    assert.ok(attempts.length, `no pid file in ${readdirSync(control).join(', ')}`);
    const pidFile = `attempt-${Math.max(...attempts)}.pid`;
    // "<pid> <start time>": the wrapper's, which leads the task's process group.
    const pid = Number(readFileSync(path.join(control, pidFile), 'utf8').split(' ')[0]);
    process.kill(-pid, 'SIGKILL');
    const stopped = await waitFor('the ended server to be found', async () => {
      const server = await status();
      return server.status === 'Stopped' ? server : undefined;
    });
    assert.match(stopped.statusMessage, /^The Cromwell server stopped: /);
    assert.match(stopped.statusMessage, /Start it again with "runyard cromwell start"\.$/);
    assert.equal(stopped.url, undefined);

    // Started again: a new process on a new start; stop ends it.
    await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
    const second = await running();
    assert.notEqual(second.managedProcess.startedAt, first.managedProcess.startedAt);
    const after = await w.ok('PUT', `/api/v1/cromwell/stop?teamId=${w.ws}`);
    assert.equal(after.status, 'Stopped');
    assert.equal(after.managedProcess, undefined);
    assert.equal(await answers(second.url), false);
    assert.match(readFileSync(path.join(runDir(), 'cromwell.log'), 'utf8'), /Received SIGTERM: shutting down/);
  });
});

/** The environment that gives the world's server its configuration (loadConfig reads RUNYARD_*). */
function envOf(w: WdlWorld): NodeJS.ProcessEnv {
  const c = w.s.config;
  return {
    RUNYARD_DATA_DIR: c.dataDir,
    RUNYARD_DATABASE_URL: c.databaseUrl,
    RUNYARD_WDL_ENGINE: 'cromwell',
    RUNYARD_CROMWELL_JAR: c.cromwellJar,
    RUNYARD_TASK_PATH: c.taskPath,
    RUNYARD_ABORT_GRACE_MS: String(c.abortGraceMs),
  };
}

/** Uploads a file into a folder of Data. */
async function uploadFileInto(w: WdlWorld, parentId: string, name: string, text: string): Promise<void> {
  const query = `teamId=${w.ws}&projectId=${w.projectId}&name=${encodeURIComponent(name)}&parentId=${parentId}`;
  const r = await fetch(`${w.s.url}/api/runyard/datasets/upload?${query}`, {
    method: 'POST',
    headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
    body: text,
  });
  assert.equal(r.status, 201, await r.text());
}
