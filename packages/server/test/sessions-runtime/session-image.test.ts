import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildJupyterImage, jupyterImageMissing } from '../../../../test/support/jupyter-image.js';
import { registryToolsMissing } from '../../../../test/support/registry.js';
import { findOnPath } from '../../src/executors/find-executable.js';
import { sessionDirsOf } from '../../src/scheduler/session-runner.js';
import { unseal } from '../../src/store/secret-box.js';
import { cmdlinesHolding } from '../engines/cmdlines.js';
import { startImageFixture, type ImageFixture } from '../images/fixture.js';
import { runningSessionWorld, type RunningSessionWorld } from '../sessions/running-world.js';

const ENTER = new URL('../../native/build/runyard-enter', import.meta.url);
const skip =
  registryToolsMissing() ??
  jupyterImageMissing() ??
  (!findOnPath('bwrap', process.env.PATH ?? '') ? 'bwrap is not installed' : null) ??
  (!existsSync(ENTER) ? 'runyard-enter is not built (npm run build, with a C compiler and static libc)' : null) ??
  false;

/**
 * Jupyter sessions that name an image (Runyard's interactiveSessionConfiguration.image): pulled from
 * a real registry (docker-registry) before the session starts, with its owner's account, and
 * Jupyter run from the image (a Jupyter image built offline from the host's Debian Jupyter, with a
 * module only it has: test/support/jupyter-image.ts), reached through the platform's proxy as
 * every session. The test server's RUNYARD_JOB_IMAGES is host: it concerns container jobs, not a
 * session that names its image.
 */
describe('Jupyter sessions in an image (a real registry)', { skip, timeout: 900_000 }, () => {
  let fixture: ImageFixture;
  let w: RunningSessionWorld;
  let lab: string;
  let labDigest: string;

  before(async () => {
    fixture = await startImageFixture();
    const image = buildJupyterImage();
    const pushed = Date.now();
    labDigest = fixture.registry.push(image.layout, image.tag, 'lab/notebook:1');
    lab = `${fixture.registry.host}/lab/notebook:1`;
    console.log(`jupyter image: ${image.built ? 'built' : 'reused'} in ${image.ms} ms, pushed in ${Date.now() - pushed} ms`);
    w = await runningSessionWorld({ RUNYARD_INSECURE_REGISTRIES: fixture.registry.host });
  });
  after(async () => {
    await w?.close();
    await fixture?.stop();
  });

  const jupyter = (image: string) => w.session({ backend: 'regular', name: `nb-${randomUUID().slice(0, 8)}`, image });
  const logOf = (id: string) => {
    const file = sessionDirsOf(w.s.config, id).logFile;
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  };

  it("becomes ready in its image: the kernel imports the image's own module and sees the image's Env, not the host's system", async () => {
    const created = await jupyter(lab);
    assert.equal(created.interactiveSessionConfiguration.image, lab);
    const ready = await w.until(created._id, ['ready']);
    assert.equal(ready.interactiveSessionConfiguration.image, lab);
    const cell = await w.runCell(
      created._id,
      [
        'import os, sys, lab_only_lib',
        'print(lab_only_lib.WHERE, lab_only_lib.__file__, lab_only_lib.hello())',
        "print('LAB_IMAGE', os.environ.get('LAB_IMAGE'), sys.executable)",
        "print('host node', os.path.exists('/usr/bin/node'))",
        "open('written-in-the-image.txt', 'w').write('home')",
        "print('mounts', os.path.isdir(os.path.expanduser('~/mounts')))",
      ].join('\n'),
    );
    const log = logOf(created._id);
    assert.equal(cell.status, 'ok', `${cell.stdout}\n${log}`);
    assert.match(cell.stdout, /^the lab image \/usr\/local\/lib\/python3\.\d+\/dist-packages\/lab_only_lib\.py hello from lab_only_lib$/m);
    assert.match(cell.stdout, /^LAB_IMAGE 1 \/usr\/bin\/python3$/m);
    // The host's programs are not there: the image's root is the session's.
    assert.match(cell.stdout, /^host node False$/m);
    assert.match(cell.stdout, /^mounts True$/m);
    // Its home is the session's, on the host, as for every session.
    assert.equal(readFileSync(path.join(sessionDirsOf(w.s.config, created._id).home, 'written-in-the-image.txt'), 'utf8'), 'home');
    // The host's own Python has no such module.
    const host = spawnSync('/usr/bin/python3', ['-c', 'import lab_only_lib'], { encoding: 'utf8' });
    assert.notEqual(host.status, 0);
    assert.match(host.stderr, /No module named 'lab_only_lib'/);
    // The pull's progress and the image's digest, in the session's log and on its row.
    assert.match(log, /^Runyard: image: Resolving .*lab\/notebook:1 at .* \(anonymous\)$/m);
    assert.ok(log.includes(`Runyard: this session runs in the image ${lab} (${labDigest}): its /usr/bin/jupyter`), log);
    const row = await w.row(created._id);
    assert.equal(row.image_digest, labDigest);
    // The image's variables are set by bwrap (--setenv, an argv): the session's token is not one of them.
    assert.deepEqual(cmdlinesHolding(unseal(w.s.config.secretKeyFile, row.ui_token_sealed)), []);
  });

  it('an image that does not exist fails the session with the not-found message', async () => {
    const missing = `${fixture.registry.host}/lab/missing:1`;
    const created = await jupyter(missing);
    const aborted = await w.until(created._id, ['aborted']);
    assert.equal(aborted.stopReason, 'error');
    assert.match(
      aborted.statusMessage,
      new RegExp(
        `^The session could not start: The image could not be pulled: the image ${missing} was not found at ${fixture.registry.host}`,
      ),
    );
  });

  it('an image without jupyter on its PATH fails the session, saying so', async () => {
    const created = await jupyter(`${fixture.registry.host}/t/a:1`);
    const aborted = await w.until(created._id, ['aborted']);
    assert.equal(aborted.stopReason, 'error');
    assert.match(
      aborted.statusMessage,
      /the image .*\/t\/a:1 has no jupyter on its PATH \(\/usr\/local\/sbin:.*\): a Jupyter session's image needs/,
    );
  });

  it('refuses, at creation, an image that is not a reference, and an image for a backend other than Jupyter', async () => {
    const bad = await w.create({
      interactiveSessionConfiguration: { name: 'x', backend: 'regular', image: '-v /:/host' },
      projectId: w.projectId,
    });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().message, /^interactiveSessionConfiguration\.image: "-v \/:\/host" is not an image reference/);
    const vscode = await w.create({
      interactiveSessionConfiguration: { name: 'x', backend: 'vscode', image: lab },
      projectId: w.projectId,
    });
    assert.equal(vscode.statusCode, 400, vscode.body);
    assert.match(vscode.json().message, /offered for Jupyter sessions \(backend regular\) only, not vscode/);
  });
});
