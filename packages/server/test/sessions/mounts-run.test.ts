import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createExecutors } from '../../src/executors/registry.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { submit, bashBody } from '../jobs/fixtures.js';
import { waitFor } from '../scheduler/helpers.js';
import { call } from '../wire.js';
import { runningSessionWorld, type RunningSessionWorld } from './running-world.js';
import { JUPYTER_INSTALLED } from './world.js';

/**
 * Linking into a Jupyter session that really runs (the done-when of issue 13): bash jobs run by the
 * scheduler write results; a ready session gets one job's results folder (s3:// as the public
 * client's `link` builds it) and another's File Explorer folder through the v2 mount, requested
 * as the public client sends it; the fuse-filesystems show them `mounted` (and a missing object
 * `failed` with why), and a notebook cell reads their files from ~/mounts/<name>/. A folder given
 * at creation is mounted too. A pause unmounts them; the resume mounts them again.
 */
describe(
  'interactive session mounts in a running Jupyter session',
  { skip: !JUPYTER_INSTALLED && 'jupyter is not installed', timeout: 900_000 },
  () => {
    let w: RunningSessionWorld;
    let scheduler: Scheduler;
    before(async () => {
      w = await runningSessionWorld();
      scheduler = new Scheduler({
        store: w.s.store,
        config: w.s.config,
        blobs: createBlobStore(w.s.config),
        executors: createExecutors(w.s.config),
      });
      scheduler.start();
    });
    after(async () => {
      await scheduler?.stop();
      await w?.close();
    });

    const T = () => `teamId=${w.ws}`;
    /** As the public client sends every call: Content-type and apikey. */
    const send = async (method: string, url: string, body?: unknown) => {
      const r = await fetch(`${w.url}${url}`, {
        method,
        headers: { 'Content-type': 'application/json', apikey: w.s.admin.apikey },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: r.status, text: await r.text() };
    };
    const completedJob = async (name: string, command: string) => {
      const r = await submit(w, bashBody(w, { name, command, parameters: [] }));
      assert.equal(r.statusCode, 200, r.body);
      const id = r.json().jobId as string;
      return waitFor(
        `job ${name} to complete`,
        async () => {
          const doc = (await call(w.s, 'GET', `/api/v1/jobs/${id}?${T()}`)).json();
          if (['failed', 'aborted'].includes(doc.status)) assert.fail(`job ${name} ${doc.status}`);
          return doc.status === 'completed' ? doc : undefined;
        },
        120_000,
      );
    };
    const until = (id: string, statuses: string[]) =>
      waitFor(
        `session ${id} to be ${statuses.join(' or ')}`,
        async () => {
          const doc = (await w.getSession(id)).json();
          if (!statuses.includes(doc.status) && ['aborted', 'terminated'].includes(doc.status))
            assert.fail(`session ${id} is ${doc.status}: ${doc.statusMessage ?? ''}`);
          return statuses.includes(doc.status) ? doc : undefined;
        },
        240_000,
      );
    /** wait_for_mount_completion for each name: polls the fuse-filesystems until the mount is mounted or failed. */
    const settled = (id: string, names: string[]) =>
      waitFor(
        `mounts ${names.join(', ')} of ${id} to settle`,
        async () => {
          const r = await send('GET', `/api/v1/interactive-sessions/${id}/fuse-filesystems?${T()}`);
          assert.equal(r.status, 200, r.text);
          const all = JSON.parse(r.text).fuseFileSystems as Array<Record<string, any>>;
          const byName = Object.fromEntries(all.map((m) => [m.mountName, m]));
          return names.every((n) => ['mounted', 'failed'].includes(byName[n]?.status)) ? byName : undefined;
        },
        120_000,
      );
    const runCell = (id: string, code: string) => w.runCell(id, code);

    it("a job's results folder and a File Explorer folder linked into a ready session are mounted and readable from the notebook; pause and resume", async () => {
      const align = await completedJob('align', 'mkdir -p "$RUNYARD_RESULTS_DIR" && echo aligned-reads > "$RUNYARD_RESULTS_DIR/out.txt"');
      const count = await completedJob(
        'count',
        'mkdir -p "$RUNYARD_RESULTS_DIR/tables" && echo 42 > "$RUNYARD_RESULTS_DIR/tables/counts.tsv"',
      );
      const bucket = align.results.s3BucketName as string;
      // Given at creation: the logs of the first job.
      const created = await w.session({ backend: 'regular', name: 'linked' }, undefined, {
        fuseFileSystems: [{ type: 'S3Folder', data: { name: 'logs', s3BucketName: bucket, s3Prefix: `${align.logs.s3Prefix}/` } }],
      });
      await until(created._id, ['ready']);

      // `cloudos link s3://<bucket>/<results prefix>`: parse_s3_path's item; a File Explorer folder by id; a missing object.
      const mount = await send('POST', `/api/v2/interactive-sessions/${created._id}/fuse-filesystem/mount?${T()}`, {
        dataItems: [
          { type: 'S3Folder', data: { name: 'results', s3BucketName: bucket, s3Prefix: align.results.s3Prefix } },
          { kind: 'Folder', item: count.analysisResults.folderId, name: 'count-results' },
          { type: 'S3File', data: { name: 'missing.txt', s3BucketName: bucket, s3ObjectKey: `${w.ws}/nothing/missing.txt` } },
        ],
      });
      assert.equal(mount.status, 204, mount.text);
      const names = ['logs', 'results', 'count-results', 'missing.txt'];
      const mounts = await settled(created._id, names);
      assert.equal(mounts.results.status, 'mounted', JSON.stringify(mounts.results));
      assert.equal(mounts['count-results'].status, 'mounted', JSON.stringify(mounts['count-results']));
      assert.equal(mounts.logs.status, 'mounted', JSON.stringify(mounts.logs));
      assert.equal(mounts['missing.txt'].status, 'failed');
      assert.match(mounts['missing.txt'].errorMessage, /Nothing is stored at .*nothing\/missing\.txt/);

      const read = await runCell(
        created._id,
        [
          'import os',
          "print(open(os.path.expanduser('~/mounts/results/out.txt')).read(), end='')",
          "print(open(os.path.expanduser('~/mounts/count-results/tables/counts.tsv')).read(), end='')",
          "print(sorted(os.listdir(os.path.expanduser('~/mounts/logs'))) != [])",
          "print(os.path.exists(os.path.expanduser('~/mounts/missing.txt')))",
          // Read-only: the store's copy cannot be changed from the session.
          'try:',
          "    open(os.path.expanduser('~/mounts/results/out.txt'), 'a').write('x')",
          "    print('written')",
          'except OSError as e:',
          "    print('read-only')",
        ].join('\n'),
      );
      assert.equal(read.status, 'ok', read.stdout);
      assert.equal(read.stdout, 'aligned-reads\n42\nTrue\nFalse\nread-only\n');

      // A pause unmounts them (kept as records); the resume mounts them again.
      assert.equal((await w.abort(created._id, { uploadOnClose: true, forceAbort: false })).statusCode, 204);
      await until(created._id, ['aborted']);
      const paused = JSON.parse((await send('GET', `/api/v1/interactive-sessions/${created._id}/fuse-filesystems?${T()}`)).text);
      assert.deepEqual(Object.fromEntries(paused.fuseFileSystems.map((m: any) => [m.mountName, m.status])), {
        logs: 'unmounted',
        results: 'unmounted',
        'count-results': 'unmounted',
        'missing.txt': 'failed',
      });
      const refused = await send('POST', `/api/v1/interactive-sessions/${created._id}/fuse-filesystem/mount?${T()}`, {
        dataItem: { type: 'S3Folder', data: { name: 'later', s3BucketName: bucket, s3Prefix: `${w.ws}/later/` } },
      });
      assert.equal(refused.status, 400);
      assert.equal(JSON.parse(refused.text).message, 'Request failed with status code 403');
      assert.equal((await w.resume(created._id)).statusCode, 200);
      await until(created._id, ['ready']);
      const again = await settled(created._id, names);
      assert.equal(again.results.status, 'mounted');
      const reread = await runCell(created._id, "import os\nprint(open(os.path.expanduser('~/mounts/results/out.txt')).read(), end='')");
      assert.equal(reread.stdout, 'aligned-reads\n');
    });
  },
);
