import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort, registryToolsMissing } from '../../../../test/support/registry.js';
import { uploadFile } from '../../../../test/support/upload.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { startBashJobServer, type BashJobServer } from '../scheduler/bash-job-server.js';
import { startImageFixture, type ImageFixture } from '../images/fixture.js';

const skip = registryToolsMissing() ?? false;
const ACCOUNT = { username: 'lab-robot', password: 'pull-secret-7f3a' };

/**
 * Bash jobs of docker workflows run in their images, on a server with no image settings but the
 * test registries' (plain HTTP): pulled from a real registry (docker-registry) into the cache with
 * the job owner's linked account, unpacked, and made the task's root in the sandbox.
 */
describe('container jobs run in their image (a real registry)', { skip, timeout: 600_000 }, () => {
  let open: ImageFixture;
  let locked: ImageFixture;
  let w: BashJobServer;
  let down: string;

  before(async () => {
    [open, locked] = await Promise.all([startImageFixture(), startImageFixture(ACCOUNT)]);
    down = `127.0.0.1:${await freePort()}`;
    w = await startBashJobServer({
      RUNYARD_JOB_IMAGES: 'pull',
      RUNYARD_INSECURE_REGISTRIES: [open.registry.host, locked.registry.host, down].join(','),
    });
  });
  after(async () => {
    await w?.close();
    await open?.stop();
    await locked?.stop();
  });

  let workflows = 0;
  /** Submits a bash job of a new docker workflow of `image`; answers its id. */
  const submit = async (image: string, command: string, extra: Record<string, unknown> = {}) => {
    const body = { workspaceId: w.ws, name: `wf-${++workflows}`, containerName: image };
    const workflow = (await w.ok('POST', '/api/runyard/admin/workflows/docker', body))._id as string;
    return w.submit(command, { workflow, ...extra });
  };
  const ended = (id: string) => w.ended(id);
  const logOf = (id: string) => w.logOf(id);

  it("a hostile image: its link to the host's /etc/shadow is not followed, its setuid-root program runs as the task", async () => {
    const id = await submit(
      `${open.registry.host}/t/hostile:1`,
      'cat /etc/resolv.conf; ls -ln /usr/local/bin/id-suid; id-suid -u; echo done',
    );
    const job = await ended(id);
    const log = logOf(id);
    assert.equal(job.status, 'completed', `${job.statusMessage}\n${log}`);
    assert.doesNotMatch(log, /root:[^\n]*:[0-9]+:/, 'the host shadow file was read');
    // Unpacked without its setuid bit, and run with no new privileges: never uid 0.
    assert.match(log, /\n-r-xr-xr-x /);
    assert.match(log, /\n[1-9][0-9]*\ndone\n/);
  });

  it("runs in image a: its own tool, not the host's; the log names the digest; the root is read-only", async () => {
    const image = `${open.registry.host}/t/a:1`;
    const id = await submit(
      image,
      'hello-a; test -e /usr/bin/node && echo HOST-NODE; touch /usr/x 2>/dev/null || echo "root is read-only"; echo "$HOME"',
    );
    const job = await ended(id);
    const log = logOf(id);
    assert.equal(job.status, 'completed', `${job.statusMessage}\n${log}`);
    assert.match(log, /hello from image a\n/);
    assert.doesNotMatch(log, /HOST-NODE/);
    assert.match(log, /root is read-only\n/);
    const digest = open.digests.get('t/a:1')!;
    assert.ok(log.includes(`Runyard: this job runs in the image ${image} (${digest})`), log);
    assert.match(log, /Runyard: image: .* is sha256:[0-9a-f]{64}: 2 layers/);
  });

  it('the same command in image b fails with 127: image b has no hello-a', async () => {
    const id = await submit(`${open.registry.host}/t/b:1`, 'hello-a');
    const job = await ended(id);
    assert.equal(job.status, 'failed');
    assert.equal(job.exitCode, 127, logOf(id));
    assert.match(logOf(id), /hello-a: command not found/);
  });

  it("honours the image config: its variables under the job's, its PATH, its entrypoint; the work directory is the cwd", async () => {
    const id = await submit(`${open.registry.host}/t/configured:1`, 'echo "FOO=$FOO"; tool-on-image-path; pwd; id -u');
    const job = await ended(id);
    const log = logOf(id);
    assert.equal(job.status, 'completed', `${job.statusMessage}\n${log}`);
    assert.match(log, /FOO=from-image\n/);
    assert.match(log, /tool on the image PATH\n/);
    assert.match(log, /entrypoint ran with: bash -c /);
    assert.ok(log.includes(`${jobPaths(w.s.config.dataDir, w.ws, id).work}\n`), log);
    assert.match(log, /not in the image's WorkingDir \/srv/);
    // A root server runs tasks as RUNYARD_TASK_UID (65534 here), whatever the image's user; the log says so.
    if (process.getuid?.() === 0) {
      assert.match(log, /\n65534\n/);
      assert.match(log, /runs as uid 65534 .* not as the image's user app/);
    } else assert.match(log, /\n1234\n/);
  });

  it('two jobs of one image at once: one pull, both run in it', async () => {
    // An image no test before pulled (the cache is by digest): the open registry's copy of the private image.
    const image = `${open.registry.host}/t/private:1`;
    const ids = await Promise.all([submit(image, 'hello-private'), submit(image, 'hello-private')]);
    const jobs = await Promise.all(ids.map(ended));
    for (const [i, job] of jobs.entries()) assert.equal(job.status, 'completed', `${job.statusMessage}\n${logOf(ids[i])}`);
    const logs = ids.map(logOf);
    assert.equal(logs.filter((log) => /Copying blob/.test(log)).length, 1, logs.join('\n----\n'));
    assert.equal(logs.filter((log) => /being pulled for another job|is in the cache/.test(log)).length, 1, logs.join('\n----\n'));
  });

  it("a private image: pulled with the owner's linked account; without one the job fails, saying who was refused", async () => {
    const image = `${locked.registry.host}/t/private:1`;
    const refused = await ended(await submit(image, 'hello-private'));
    assert.equal(refused.status, 'failed');
    assert.match(
      refused.statusMessage,
      new RegExp(`The image could not be pulled: the registry ${locked.registry.host} refused .* an anonymous pull`),
    );
    await w.ok('PUT', '/api/runyard/users/me/docker-registries', { registry: locked.registry.host, ...ACCOUNT });
    const id = await submit(image, 'hello-private');
    const job = await ended(id);
    const log = logOf(id);
    assert.equal(job.status, 'completed', `${job.statusMessage}\n${log}`);
    assert.match(log, /hello from image private\n/);
    assert.match(log, /as lab-robot/);
    assert.ok(!log.includes(ACCOUNT.password) && !JSON.stringify(job).includes(ACCOUNT.password));
    await w.ok('PUT', '/api/runyard/users/me/docker-registries', {
      registry: locked.registry.host,
      username: ACCOUNT.username,
      password: 'wrong',
    });
    const wrong = await ended(await submit(image, 'hello-private'));
    assert.match(wrong.statusMessage, /refused .* to the user "lab-robot"/);
    assert.ok(!wrong.statusMessage.includes('wrong'));
  });

  it('a missing tag and a registry that is down fail the job with what happened, before any task runs', async () => {
    const missing = await ended(await submit(`${open.registry.host}/t/a:nope`, 'echo ran'));
    assert.equal(missing.status, 'failed');
    assert.match(missing.statusMessage, /The image could not be pulled: the image .*t\/a:nope was not found/);
    const unreachable = await ended(await submit(`${down}/t/a:1`, 'echo ran'));
    assert.equal(unreachable.status, 'failed');
    assert.match(unreachable.statusMessage, new RegExp(`The image could not be pulled: the registry ${down} could not be reached`));
  });

  it('an array job of 20 rows: every row runs in the image', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => `s${i}`);
    const fileId = await uploadFile(
      w.s.url,
      w.s.admin.apikey,
      { workspaceId: w.ws, projectId: (await w.ok('GET', `/api/v2/projects?teamId=${w.ws}`)).projects[0]._id },
      'rows.csv',
      `sample\n${rows.join('\n')}\n`,
    );
    const id = await submit(`${open.registry.host}/t/a:1`, 'echo "row $RUNYARD_ARRAY_INDEX $RUNYARD_PARAM_SAMPLE: $(hello-a)"', {
      arrayFile: { dataItem: { kind: 'File', item: fileId }, separator: ',' },
      parameters: [{ prefix: '--', name: 'sample', parameterKind: 'arrayFileColumn', columnName: 'sample', columnIndex: 0 }],
    });
    const job = await ended(id);
    const log = logOf(id);
    assert.equal(job.status, 'completed', `${job.statusMessage}\n${log}`);
    assert.deepEqual(job.arrayTasks, { total: 20, queued: 0, running: 0, completed: 20, failed: 0, atOnce: job.arrayTasks.atOnce });
    for (let i = 0; i < 20; i++) assert.ok(log.includes(`row ${i} s${i}: hello from image a --sample s${i}\n`), log);
  });
});
