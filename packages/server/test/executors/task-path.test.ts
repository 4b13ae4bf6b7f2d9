// The task PATH as a sandboxed task sees it (executors/sandbox/task-path.ts): a folder whose programs
// cannot work in the sandbox (a version manager's shims, links or scripts into folders the task does
// not see) is left out, and said at start and in the job's log, so the next folder's program is found
// rather than a silent 127.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { checkTaskPath } from '../../src/executors/sandbox/task-path.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { stop } from '../../../../test/support/server-process.js';
import { finished, world, type World } from '../hostile/world.js';

/** A host with a pyenv-like manager: its shims run its hidden libexec; pipx-like links; scripts of a hidden python; a folder of its own programs. */
function host() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'runyard-taskpath-'));
  const dir = (...parts: string[]) => {
    const d = path.join(root, ...parts);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const script = (file: string, text: string) => {
    writeFileSync(file, text);
    chmodSync(file, 0o755);
  };
  const manager = dir('manager');
  script(path.join(dir('manager', 'libexec'), 'manager'), '#!/bin/sh\necho "the manager ran $*"\n');
  script(path.join(dir('manager', 'shims'), 'python3'), `#!/bin/sh\nexec "${manager}/libexec/manager" exec python3 "$@"\n`);
  const links = dir('links');
  script(path.join(dir('venvs', 'tool'), 'tool'), '#!/bin/sh\necho tool\n');
  symlinkSync(path.join(root, 'venvs', 'tool', 'tool'), path.join(links, 'tool'));
  const scripts = dir('scripts');
  script(path.join(dir('hidden-python', 'bin'), 'python'), '#!/bin/sh\necho hidden\n');
  script(path.join(scripts, 'runner'), `#!${root}/hidden-python/bin/python\nprint('x')\n`);
  const own = dir('own');
  script(path.join(own, 'hello'), '#!/bin/sh\necho hello\n');
  symlinkSync(path.join(root, 'venvs', 'tool', 'tool'), path.join(own, 'tool'));
  return { root, shims: path.join(manager, 'shims'), links, scripts, own };
}

describe('the task PATH in the sandbox', { timeout: 300_000 }, () => {
  it('leaves out shims, folders of links out of sight and of scripts run by a hidden interpreter; keeps the rest, in order', () => {
    const h = host();
    const { path: usable, leftOut } = checkTaskPath(`${h.shims}:${h.links}:${h.scripts}:${h.own}:relative:/usr/bin:/bin`);
    assert.equal(usable, `${h.own}:relative:/usr/bin:/bin`);
    assert.deepEqual(
      leftOut.map((l) => [l.dir, l.why.split(' ')[0]]),
      [
        [h.shims, 'a'],
        [h.links, 'its'],
        [h.scripts, 'its'],
      ],
    );
    // A link to a program of another folder of the PATH works: that folder is bound too.
    const withVenv = checkTaskPath(`${h.links}:${path.join(h.root, 'venvs', 'tool')}:/usr/bin`);
    assert.deepEqual(withVenv.leftOut, []);
  });

  describe('a server whose PATH has a shim first', () => {
    let w: World;
    const h = host();
    after(async () => {
      if (w) await stop(w.server);
    });

    it("the job runs the system's python3 and its log says what was left out; so does the server's start", async () => {
      w = await world('bwrap', { RUNYARD_TASK_PATH: `${h.shims}:/usr/local/bin:/usr/bin:/bin` });
      const id = await w.submit(w.mallory.key, w.mallory.ws, w.mallory.project, w.mallory.workflow, "python3 -c 'print(6 * 7)'");
      const log = () => readFileSync(path.join(jobPaths(w.dataDir, w.mallory.ws, id).logs, 'stdout.txt'), 'utf8');
      assert.equal(await finished(w, w.mallory.key, w.mallory.ws, id), 'completed', log());
      assert.match(log(), /^42$/m);
      assert.ok(
        log().includes(`Runyard: left out of the task PATH, as their programs do not work in the task sandbox: ${h.shims} (`),
        log(),
      );
      assert.match(
        w.server.stdout(),
        new RegExp(`Note: left out of the task PATH, as their programs do not work in the task sandbox: ${h.shims} \\(`),
      );
    });
  });
});
