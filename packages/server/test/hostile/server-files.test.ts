// T16 and T17 (../shared/design/reliability-security.md): what a job leaves in its own directories
// (links, FIFOs) is never followed by the server (its event stream, the memory-limit line it appends
// to the log, storage reads), and every limit that stops part of a task is named. Each attack is a row:
// mallory's bash command, then what is checked through the API and on the host; the data directory's
// files outside mallory's own are unchanged afterwards. With RUNYARD_SANDBOX=none the same rows still
// hold: it is the server's reading, not the sandbox, that keeps the first ones out.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { running, stop } from '../../../../test/support/server-process.js';
import { finished, snapshot, world, type World } from './world.js';

/** Finds the data directory and the job's logs directory from the task's own paths, as an attacker would. */
const FIND = 'D=${PWD%%/storage/*}; L="$RUNYARD_RESULTS_DIR/../logs"';

interface Attack {
  name: string;
  command: string;
  resources?: { cpu: number; ram: number };
  /** Checks what the API shows afterwards; `log` is the event stream's text of the job. */
  check(w: World, job: { id: string; status: string; statusMessage: string; events: string; object: ObjectReply }): void;
}

interface ObjectReply {
  status: number;
  body: string;
}

const ATTACKS: Attack[] = [
  {
    name: "a log replaced with a link to the admin's key file is not streamed",
    command: `${FIND}; rm -f "$L/stdout.txt"; ln -s "$D/initial-admin.json" "$L/stdout.txt"; sleep 1`,
    check(w, job) {
      assert.doesNotMatch(job.events, new RegExp(w.admin.key), 'the event stream showed the admin key');
      assert.match(job.events, /event: end/);
    },
  },
  {
    // The status message of a failed bash job ends with the last lines of its log (scheduler/settle.ts): read beneath, never through a link.
    name: "a log replaced with a link to the admin's key file, then a failure: the status message does not show it",
    command: `${FIND}; rm -f "$L/stdout.txt"; ln -s "$D/initial-admin.json" "$L/stdout.txt"; exit 3`,
    check(w, job) {
      assert.equal(job.status, 'failed');
      assert.match(job.statusMessage, /^The task exited with code 3\./);
      assert.doesNotMatch(job.statusMessage, new RegExp(w.admin.key), 'the status message showed the admin key');
    },
  },
  {
    name: 'a log replaced with a link to the server key, then a memory kill: the limit line is not written through the link',
    command: `${FIND}; rm -f "$L/stdout.txt"; ln -s "$D/secret.key" "$L/stdout.txt"; head -c 3000m /dev/zero | tail`,
    resources: { cpu: 1, ram: 1 },
    check(_w, job) {
      assert.equal(job.status, 'failed');
      assert.match(job.statusMessage, /memory limit of 1 GiB/);
    },
  },
  {
    // Under bwrap the server's files are not in the task's view (ln fails); unconfined (sandbox none) the
    // link is made, and it is the server's refusal to write a file with other names that keeps the key.
    name: 'a log replaced with a hard link to the server key, then a memory kill: the limit line is not written to the key',
    command: `${FIND}; rm -f "$L/stdout.txt"; ln "$D/secret.key" "$L/stdout.txt"; head -c 3000m /dev/zero | tail`,
    resources: { cpu: 1, ram: 1 },
    check(_w, job) {
      assert.equal(job.status, 'failed');
      assert.match(job.statusMessage, /memory limit of 1 GiB/);
    },
  },
  {
    name: 'a log replaced with a FIFO neither blocks the job nor the event stream',
    command: `${FIND}; rm -f "$L/stdout.txt"; mkfifo "$L/stdout.txt"; echo done`,
    check(_w, job) {
      assert.equal(job.status, 'completed');
      assert.match(job.events, /event: end/);
    },
  },
  {
    name: "a link in the results to the admin's key file is refused by the storage API with a 4xx",
    command: `${FIND}; ln -s "$D/initial-admin.json" "$RUNYARD_RESULTS_DIR/leak.json"`,
    check(w, job) {
      assert.ok(job.object.status >= 400 && job.object.status < 500, `storage/object answered ${job.object.status}: ${job.object.body}`);
      assert.doesNotMatch(job.object.body, new RegExp(w.admin.key));
    },
  },
  {
    name: 'a child killed for its memory while the job completes is named in its status',
    command: '(head -c 3000m /dev/zero | tail) 2>/dev/null; echo survived',
    resources: { cpu: 1, ram: 1 },
    check(_w, job) {
      assert.equal(job.status, 'completed');
      assert.match(job.statusMessage, /^Runyard: 1 process was killed for exceeding the memory limit of 1 GiB\.$/);
      assert.match(job.events, /survived/);
    },
  },
  {
    // The children sleep far longer than the forking takes on a loaded host, so none frees its slot early; the job's end kills them.
    name: '2,000 forks stop at the process limit, and the status says so',
    command:
      '/usr/bin/python3 -c \'import os, time\nok = 0\nfor i in range(2000):\n    try:\n        p = os.fork()\n    except OSError:\n        continue\n    if p == 0:\n        time.sleep(120)\n        os._exit(0)\n    ok += 1\nprint("FORKED", ok)\'',
    check(_w, job) {
      const forked = Number(/FORKED (\d+)/.exec(job.events)?.[1] ?? NaN);
      assert.ok(forked < 2000 && forked > 0, `forked ${forked} of 2000`);
      assert.match(job.statusMessage, /new processes were refused at the limit of 512 processes/);
    },
  },
];

async function jobView(
  w: World,
  id: string,
): Promise<{ status: string; statusMessage: string; events: string; object: ObjectReply; slurmJobId: string | null }> {
  const { ws, key } = w.mallory;
  await finished(w, key, ws, id);
  const job = (await w.api('GET', `/api/v1/jobs/${id}?teamId=${ws}`, key)).json;
  const base = `http://127.0.0.1:${w.port}`;
  const events = await fetch(`${base}/api/runyard/jobs/${id}/events?teamId=${ws}`, { headers: { apikey: key } }).then((r) => r.text());
  const bucket = `runyard-${ws}`;
  const objectKey = `${ws}/jobs/${id}/results/leak.json`;
  const reply = await fetch(`${base}/api/runyard/storage/object?teamId=${ws}&bucket=${bucket}&key=${encodeURIComponent(objectKey)}`, {
    headers: { apikey: key },
  });
  return {
    status: job.status,
    statusMessage: job.statusMessage ?? '',
    events,
    object: { status: reply.status, body: await reply.text() },
    slurmJobId: job.hpcCluster?.slurmJobId ?? null,
  };
}

const WHERE = [
  { sandbox: 'bwrap', slurm: false },
  { sandbox: 'none', slurm: false },
  { sandbox: 'bwrap', slurm: true },
] as const;

for (const { sandbox, slurm } of WHERE) {
  describe(
    `T16/T17: the server and what a job leaves in its directories (sandbox ${sandbox}${slurm ? ', on Slurm' : ''})`,
    { timeout: 900_000 },
    () => {
      after(() => {
        for (const child of running) child.kill('SIGKILL');
      });

      it('each attack fails, and the data directory outside the attacker’s own files is unchanged', async () => {
        const w = await world(sandbox, {}, { slurm });
        const own = path.join(w.dataDir, 'storage', `runyard-${w.mallory.ws}`);
        const except = [own, path.join(w.dataDir, 'run')];
        const before = snapshot(w.dataDir, except);
        for (const attack of ATTACKS) {
          const id = await w.submit(
            w.mallory.key,
            w.mallory.ws,
            w.mallory.project,
            w.mallory.workflow,
            attack.command,
            {},
            { ...w.mallory.placement, ...(attack.resources && { resourceRequirements: attack.resources }) },
          );
          const job = await jobView(w, id);
          // Where the attack ran: a Slurm job of the cluster, or the local executor.
          assert.equal(job.slurmJobId !== null, slurm, `attack "${attack.name}" ran ${job.slurmJobId ? 'on Slurm' : 'locally'}`);
          try {
            attack.check(w, { id, ...job });
          } catch (e) {
            throw new Error(`attack "${attack.name}": ${(e as Error).message}\nstatus ${job.status}: ${job.statusMessage}\n${job.events}`);
          }
        }
        assert.deepEqual(snapshot(w.dataDir, except), before, 'a file of the data directory changed');
        assert.equal(w.server.child.exitCode, null, 'the server is up');
        await w.api('PUT', `/api/v2/jobs/${w.sleeperJob}/abort?teamId=${w.admin.ws}&forceAbort=true`, w.admin.key);
        await finished(w, w.admin.key, w.admin.ws, w.sleeperJob);
        await stop(w.server);
      });
    },
  );
}
