import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../scheduler/helpers.js';
import { runningSessionWorld, type RunningSessionWorld } from './running-world.js';
import { JUPYTER_INSTALLED } from './world.js';

/**
 * `cloudos interactive-session create|status --watch|pause --wait|resume`, replayed request by
 * request as the public client sends them (wire-api §2.11 and §1.2: `Content-type:
 * application/json` and `apikey` on every call, bodies as build_session_payload and
 * build_resume_payload make them), against a server whose sessions really run (Jupyter). The
 * public client (Python) cannot be installed here.
 */
describe('the public client runs a Jupyter session', { skip: !JUPYTER_INSTALLED && 'jupyter is not installed', timeout: 600_000 }, () => {
  let w: RunningSessionWorld;
  before(async () => {
    w = await runningSessionWorld();
  });
  after(() => w.close());

  const headers = () => ({ 'Content-type': 'application/json', apikey: w.s.admin.apikey });
  const send = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(`${w.url}${url}`, { method, headers: headers(), ...(body !== undefined && { body: JSON.stringify(body) }) });
    return { status: r.status, text: await r.text() };
  };
  const json = async (method: string, url: string, body?: unknown, status = 200) => {
    const r = await send(method, url, body);
    assert.equal(r.status, status, `${method} ${url}: ${r.status} ${r.text}`);
    return JSON.parse(r.text);
  };
  /** `--watch`: polls the status until it shows as running, paused or terminated (the client's every 30 s, faster here). */
  const watch = (id: string, until: string[]) =>
    waitFor(
      `session ${id} to be ${until.join(' or ')}`,
      async () => {
        const s = await json('GET', `/api/v2/interactive-sessions/${id}?teamId=${w.ws}`);
        return until.includes(s.status) ? s : undefined;
      },
      240_000,
    );

  it('create, status --watch, pause --wait and resume', async () => {
    // create: 1. the project by name, 3. the POST (no --mount / --link: no Datasets calls).
    const projects = await json('GET', `/api/v2/projects?teamId=${w.ws}&search=demo`);
    const project = projects.projects.find((p: { name: string }) => p.name === 'demo');
    assert.ok(project, JSON.stringify(projects));
    const shutdown = new Date(Date.now() + 12 * 3_600_000).toISOString().replace('Z', '000Z');
    const created = await json(
      'POST',
      `/api/v1/interactive-sessions?teamId=${w.ws}`,
      {
        interactiveSessionConfiguration: {
          name: 'analysis',
          backend: 'regular',
          executionPlatform: 'aws',
          instanceType: 'c5.xlarge',
          isCostSaving: false,
          storageSizeInGb: 500,
          storageMode: 'regular',
          visibility: 'private',
          execution: { computeCostLimit: -1, autoShutdownAtDate: shutdown },
        },
        dataItems: [],
        fileSystemIds: [],
        fuseFileSystems: [],
        projectId: project._id,
      },
      201,
    );
    // The keys the client's table reads.
    assert.match(created._id, /^[0-9a-f]{24}$/);
    assert.equal(created.name, 'analysis');
    assert.equal(created.interactiveSessionType, 'awsJupyterNotebook');
    assert.equal(created.status, 'scheduled');
    assert.equal(created.resources.instanceType, 'c5.xlarge');
    assert.equal(created.interactiveSessionConfiguration.storageSizeInGb, 500);
    // What is kept as asked but has no effect here is said, not applied in silence.
    assert.ok(
      created.runyardNotes.some((n: string) => /^Runyard: storageSizeInGb \(500\) has no effect here/.test(n)),
      JSON.stringify(created.runyardNotes),
    );

    const running = await watch(created._id, ['ready']);
    assert.equal(running.interactiveSessionConfiguration.executionPlatform, 'aws');
    // Its running time is whole seconds: wait until it shows one, so that the pause below has a
    // run to count however quickly it comes (it once came within the first second).
    const ranASecond = await waitFor(
      'the session to have run a second',
      async () => {
        const s = await json('GET', `/api/v2/interactive-sessions/${created._id}?teamId=${w.ws}`);
        return s.totalRunningTimeInSeconds >= 1 ? s : undefined;
      },
      60_000,
    );

    // pause: 1. the status (not already paused), 3. the PUT: 204 and no body, 4. --wait: polls until paused.
    assert.equal((await json('GET', `/api/v2/interactive-sessions/${created._id}?teamId=${w.ws}`)).status, 'ready');
    const paused = await send('PUT', `/api/v1/interactive-sessions/${created._id}/abort?teamId=${w.ws}`, {
      uploadOnClose: true,
      forceAbort: false,
    });
    assert.equal(paused.status, 204);
    assert.equal(paused.text, '');
    const stopped = await watch(created._id, ['aborted', 'terminated']);
    assert.equal(stopped.status, 'aborted');
    assert.equal(typeof stopped.totalCostInUsd, 'number');
    assert.ok(stopped.totalRunningTimeInSeconds >= ranASecond.totalRunningTimeInSeconds, JSON.stringify(stopped));
    // Pausing it again: the client stops at step 1; the server would say why.
    const again = await send('PUT', `/api/v1/interactive-sessions/${created._id}/abort?teamId=${w.ws}`, {
      uploadOnClose: true,
      forceAbort: false,
    });
    assert.equal(again.status, 409);
    assert.match(JSON.parse(again.text).message, /cannot be aborted in aborted status/);

    // resume: 1. the status (its platform), 3. the PUT with a new cost limit.
    const before = await json('GET', `/api/v2/interactive-sessions/${created._id}?teamId=${w.ws}`);
    assert.equal(before.interactiveSessionConfiguration.executionPlatform, 'aws');
    const resumed = await json('PUT', `/api/v1/interactive-sessions/${created._id}/resume?teamId=${w.ws}`, {
      dataItems: [],
      fileSystemIds: [],
      newInteractiveSessionConfiguration: { execution: { computeCostLimit: 25 } },
    });
    assert.equal(resumed.status, 'scheduled');
    assert.equal(resumed.interactiveSessionConfiguration.execution.computeCostLimit, 25);
    assert.equal((await watch(created._id, ['ready'])).status, 'ready');
    // Resuming a running session: the text the client looks for.
    const running2 = await send('PUT', `/api/v1/interactive-sessions/${created._id}/resume?teamId=${w.ws}`, {
      dataItems: [],
      fileSystemIds: [],
    });
    assert.equal(running2.status, 409);
    assert.match(JSON.parse(running2.text).message, /not in a resumable status/);
  });
});
