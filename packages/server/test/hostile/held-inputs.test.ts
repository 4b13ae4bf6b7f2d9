// A task's inputs on the local store are bound from handles the server opened when it checked
// them (staging/inputs.ts JobInputs.held, TaskSpec.bindSources), never by their path: a running
// task of the same workspace that swaps a folder on the way for a link (between the check and the
// sandbox's mount) changes nothing. The race is made certain here: the swap is done after the
// handles are taken and before the task starts.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TaskSpec } from '../../src/executors/executor.js';
import { createExecutors } from '../../src/executors/registry.js';
import { LocalBlobStore } from '../../src/storage/local.js';

describe('inputs held open: a path swapped before the mount changes nothing', { timeout: 120_000 }, () => {
  let scratch: string;
  let store: LocalBlobStore;
  let bucketDir: string;

  before(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-held-inputs-'));
    store = new LocalBlobStore(path.join(scratch, 'storage'));
    bucketDir = path.join(scratch, 'storage', 'bucket');
    mkdirSync(path.join(bucketDir, 'ws', 'results', 'lane'), { recursive: true });
    writeFileSync(path.join(bucketDir, 'ws', 'results', 'lane', 'reads.txt'), 'the stored reads\n');
    // What the link swapped in leads to: a folder of the host with a file of the same name.
    mkdirSync(path.join(scratch, 'host', 'lane'), { recursive: true });
    writeFileSync(path.join(scratch, 'host', 'lane', 'reads.txt'), 'HOST-SECRET\n');
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  /** Runs `cat <file>; ls <folder>` in the sandbox with these binds; answers its output. */
  const runCat = async (file: string, folder: string, sources: Record<string, string> | undefined, name: string) => {
    const dataDir = path.join(scratch, `data-${name}`);
    mkdirSync(dataDir, { mode: 0o700 });
    const executor = createExecutors({
      sandbox: 'bwrap',
      taskNetwork: 'none',
      taskPath: '/usr/local/bin:/usr/bin:/bin',
      cgroups: 'none',
      localCpus: 2,
      dataDir,
    }).local;
    const work = path.join(dataDir, 'work');
    mkdirSync(work, { mode: 0o777 });
    const logFile = path.join(dataDir, 'stdout.txt');
    const task: TaskSpec = {
      argv: ['/bin/sh', '-c', 'cat "$1"; ls "$2"', 'sh', file, folder],
      env: { PATH: '/usr/bin:/bin' },
      cwd: work,
      logFile,
      readable: [file, folder],
      ...(sources && { bindSources: sources }),
    };
    const control = { dir: path.join(dataDir, 'control'), attempt: 1 };
    const id = await executor.launch(task, control);
    const end = await executor.wait(control, id);
    assert.equal(end.state, 'exited');
    return readFileSync(logFile, 'utf8');
  };

  /** The stored file and folder held as staging holds them, then `results` swapped for a link to the host's folder. */
  const holdThenSwap = async (): Promise<{ file: string; folder: string; held: FileHandle[]; restore: () => void }> => {
    const heldFile = await store.holdLocal('bucket', 'ws/results/lane/reads.txt');
    const heldFolder = await store.holdLocal('bucket', 'ws/results/lane');
    // The paths held are those the store gives the task (localPath).
    const file = await store.localPath('bucket', 'ws/results/lane/reads.txt');
    const folder = await store.localPath('bucket', 'ws/results/lane');
    assert.deepEqual([heldFile.path, heldFolder.path], [file, folder]);
    const held = [heldFile.handle, heldFolder.handle];
    const results = path.join(bucketDir, 'ws', 'results');
    renameSync(results, `${results}.real`);
    symlinkSync(path.join(scratch, 'host'), results);
    return {
      file,
      folder,
      held,
      restore: () => {
        rmSync(results);
        renameSync(`${results}.real`, results);
      },
    };
  };

  it('bound from the handles, the task reads what was checked', async () => {
    const { file, folder, held, restore } = await holdThenSwap();
    try {
      const sources = { [file]: `/proc/${process.pid}/fd/${held[0]!.fd}`, [folder]: `/proc/${process.pid}/fd/${held[1]!.fd}` };
      const out = await runCat(file, folder, sources, 'held');
      assert.equal(out, 'the stored reads\nreads.txt\n');
    } finally {
      restore();
      for (const h of held) await h.close();
    }
  });

  it('bound by path (as before), the same swap shows the host file: the attack the handles stop', async () => {
    const { file, folder, held, restore } = await holdThenSwap();
    try {
      const out = await runCat(file, folder, undefined, 'path');
      assert.match(out, /HOST-SECRET/);
    } finally {
      restore();
      for (const h of held) await h.close();
    }
  });

  it('a link out where the input should be is refused when it is held, not followed', async () => {
    const results = path.join(bucketDir, 'ws', 'results');
    renameSync(results, `${results}.real`);
    symlinkSync(path.join(scratch, 'host'), results);
    try {
      await assert.rejects(store.holdLocal('bucket', 'ws/results/lane/reads.txt'), /leads outside its bucket/);
    } finally {
      rmSync(results);
      renameSync(`${results}.real`, results);
    }
  });
});
