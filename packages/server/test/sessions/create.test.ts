import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertError, assertIsoTime } from '../wire.js';
import { createBody, JUPYTER_INSTALLED, sessionWorld, shutdownIn, type SessionWorld } from './world.js';

// POST /api/v1/interactive-sessions (wire-api §2.11 "Create"): the full configuration of the
// public client, checked before anything is written, stored scheduled, answered with the session
// document (201). Every refusal is a 4xx with a message naming what is wrong, and changes nothing.

describe('interactive session create', { timeout: 120_000 }, () => {
  let w: SessionWorld;
  before(async () => {
    w = await sessionWorld();
  });
  after(() => w.close());

  /** The request is refused with status/code, the message matches, and no session was stored. */
  async function refused(body: unknown, status: number, code: string, message: RegExp): Promise<void> {
    const before = await w.sessionCount();
    const r = await w.create(body);
    assert.match(assertError(r, status, code), message);
    assert.equal(await w.sessionCount(), before, 'a refused create stored a session');
  }
  const body = (conf: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => createBody(w.projectId, conf, extra);

  it('answers 201 with the session document: _id, scheduled, every key the public client reads', async () => {
    const shutdown = shutdownIn(6);
    const r = await w.create(
      body({
        name: 'analysis',
        isCostSaving: true,
        storageSizeInGb: 750,
        execution: { computeCostLimit: 12.5, autoShutdownAtDate: shutdown },
      }),
    );
    assert.equal(r.statusCode, 201, r.body);
    const s = r.json();
    assert.match(s._id, /^[0-9a-f]{24}$/);
    assert.equal(s.name, 'analysis');
    assert.equal(s.status, 'scheduled');
    assert.equal(s.interactiveSessionType, 'awsVSCode');
    assert.equal(s.backend, 'vscode');
    assert.equal(s.team, w.ws);
    const admin = await w.s.store.db.selectFrom('users').selectAll().where('id', '=', w.s.admin.userId).executeTakeFirstOrThrow();
    assert.deepEqual(s.user, { id: admin.id, _id: admin.id, name: admin.name, surname: admin.surname, email: admin.email });
    assert.deepEqual(s.project, { _id: w.projectId, name: 'demo' });
    assert.deepEqual(s.resources, { instanceType: 'c5.xlarge', isCostSaving: true, storageSizeInGb: 750, vcpus: 4, memoryGiB: 8 });
    const expectedShutdown = new Date(Date.parse(shutdown)).toISOString();
    assert.deepEqual(s.execution, { computeCostLimit: 12.5, computeCostSpent: 0, autoShutdownAtDate: expectedShutdown });
    assert.deepEqual(s.interactiveSessionConfiguration, {
      name: 'analysis',
      backend: 'vscode',
      executionPlatform: 'aws',
      instanceType: 'c5.xlarge',
      isCostSaving: true,
      storageSizeInGb: 750,
      storageMode: 'regular',
      visibility: 'workspace',
      execution: { computeCostLimit: 12.5, autoShutdownAtDate: expectedShutdown },
    });
    assert.equal(s.totalCostInUsd, 0);
    assert.equal(s.totalRunningTimeInSeconds, 0);
    assert.equal(s.costPerHour, 0.17, 'the catalogue price of c5.xlarge');
    assert.equal(s.rVersion, null);
    assert.equal(s.visibility, 'workspace');
    assert.deepEqual([s.dataItems, s.fuseFileSystems], [[], []]);
    assert.deepEqual([s.statusMessage, s.stopReason, s.startedAt, s.lastSavedAt, s.endedAt], [null, null, null, null, null]);
    assert.deepEqual(s.archived, { status: false, archivalTimestamp: null });
    assertIsoTime(s.createdAt);
    assertIsoTime(s.updatedAt);
    // What the runner will need is on the row.
    const row = await w.row(s._id);
    assert.equal(row.workspace_id, w.ws);
    assert.equal(row.price_per_hour_cents, 17);
    assert.deepEqual([row.cpus, row.memory_gib], [4, 8]);
    assert.equal(row.home_bucket, `runyard-${w.ws}`);
    assert.equal(row.home_prefix, `${w.ws}/interactive-sessions/${s._id}/home`);
    assert.equal(row.attempt, 0);
    assert.deepEqual([row.external_id, row.run_started_at, row.lease_owner], [null, null, null]);
    assert.equal(JSON.parse(row.request_json).interactiveSessionConfiguration.name, 'analysis');
    // The GET answers the same document.
    const got = await w.getSession(s._id);
    assert.equal(got.statusCode, 200, got.body);
    assert.deepEqual(got.json(), s);
  });

  it('defaults: instance type c5.xlarge, 500 GB, private, no cost limit, no auto-shutdown; the type by platform', async () => {
    const r = await w.create({ interactiveSessionConfiguration: { name: 'bare', backend: 'vscode' }, projectId: w.projectId });
    assert.equal(r.statusCode, 201, r.body);
    const s = r.json();
    assert.equal(s.resources.instanceType, 'c5.xlarge');
    assert.equal(s.resources.storageSizeInGb, 500);
    assert.equal(s.visibility, 'private');
    assert.deepEqual(s.execution, { computeCostLimit: -1, computeCostSpent: 0, autoShutdownAtDate: null });
  });

  it('names the interactiveSessionType by backend and platform', async () => {
    const s = await w.session({ executionPlatform: 'azure', instanceType: 'Standard_D4as_v4' });
    assert.equal(s.interactiveSessionType, 'azureVSCode');
    assert.equal(s.costPerHour, 0.192);
  });

  it(
    'regular (Jupyter) is created when jupyter is on the task PATH',
    { skip: !JUPYTER_INSTALLED && 'jupyter is not installed here' },
    async () => {
      const s = await w.session({ backend: 'regular' });
      assert.equal(s.interactiveSessionType, 'awsJupyterNotebook');
      assert.equal(s.status, 'scheduled');
    },
  );

  it('refuses a backend this server has no command for, naming the setting, and stores nothing', async () => {
    await refused(body({ backend: 'rstudio', rVersion: '4.4.2' }), 400, 'SESSION_BACKEND_UNAVAILABLE', /RUNYARD_SESSION_COMMAND_RSTUDIO/);
    await refused(body({ backend: 'spark' }), 400, 'SESSION_BACKEND_UNAVAILABLE', /RUNYARD_SESSION_COMMAND_SPARK/);
    const noJupyter = await sessionWorld({ RUNYARD_TASK_PATH: mkdtempSync(path.join(os.tmpdir(), 'runyard-no-jupyter-')) });
    try {
      const r = await noJupyter.create(createBody(noJupyter.projectId, { backend: 'regular' }));
      assert.match(assertError(r, 400, 'SESSION_BACKEND_UNAVAILABLE'), /jupyter on the task PATH \(RUNYARD_TASK_PATH\)/);
      assert.equal(await noJupyter.sessionCount(), 0);
    } finally {
      await noJupyter.close();
    }
  });

  it('refuses every bad part of the configuration with a 4xx that names it, and stores nothing', async () => {
    await refused(body({ backend: 'windows' }), 400, 'VALIDATION_FAILED', /backend must be one of regular, vscode, rstudio, spark/);
    await refused(body({ instanceType: 'x9.huge' }), 400, 'VALIDATION_FAILED', /Instance type "x9.huge" is not one this server offers/);
    await refused(
      body({ execution: { computeCostLimit: -5 } }),
      400,
      'VALIDATION_FAILED',
      /computeCostLimit must be -1 \(no limit\) or a number of dollars of 0 or more, not -5/,
    );
    await refused(body({ execution: { computeCostLimit: -0.5 } }), 400, 'VALIDATION_FAILED', /computeCostLimit must be -1/);
    await refused(
      body({ execution: { autoShutdownAtDate: shutdownIn(-1) } }),
      400,
      'VALIDATION_FAILED',
      /autoShutdownAtDate .* is in the past/,
    );
    await refused(
      body({ execution: { autoShutdownAtDate: 'tomorrow' } }),
      400,
      'VALIDATION_FAILED',
      /autoShutdownAtDate must be an ISO-8601 date/,
    );
    await refused(body({ visibility: 'everyone' }), 400, 'VALIDATION_FAILED', /visibility must be one of workspace, private/);
    await refused(body({ storageSizeInGb: 50 }), 400, 'VALIDATION_FAILED', /storageSizeInGb/);
    await refused(body({ storageSizeInGb: 6000 }), 400, 'VALIDATION_FAILED', /storageSizeInGb/);
    await refused(body({ name: '' }), 400, 'VALIDATION_FAILED', /name must not be empty/);
    await refused(body({ name: 'x'.repeat(101) }), 400, 'VALIDATION_FAILED', /name/);
    await refused(body({ executionPlatform: 'gcp' }), 400, 'VALIDATION_FAILED', /executionPlatform must be one of aws, azure/);
    await refused({ projectId: w.projectId }, 400, 'VALIDATION_FAILED', /interactiveSessionConfiguration is required/);
    await refused(body({}, { projectId: undefined }), 400, 'VALIDATION_FAILED', /projectId is required/);
    await refused(body({}, { projectId: 'f'.repeat(24) }), 404, 'PROJECT_NOT_FOUND', /Project "f{24}" not found in this workspace/);
  });

  it('spark needs aws and catalogue instance types for its cluster; rstudio needs its R version', async () => {
    const spark = await sessionWorld({ RUNYARD_SESSION_COMMAND_SPARK: 'spark-notebook', RUNYARD_SESSION_COMMAND_RSTUDIO: 'rserver' });
    try {
      const cluster = (master: string) => ({ name: 'c', instances: { master: { type: master }, core: { type: 'c5.xlarge' } } });
      const refusedHere = async (conf: Record<string, unknown>, message: RegExp) => {
        const r = await spark.create(createBody(spark.projectId, conf));
        assert.match(assertError(r, 400, 'VALIDATION_FAILED'), message);
      };
      await refusedHere({ backend: 'spark', executionPlatform: 'azure' }, /spark is only offered with executionPlatform aws/);
      await refusedHere({ backend: 'spark', cluster: cluster('z1.none') }, /Instance type "z1.none"/);
      await refusedHere({ backend: 'rstudio' }, /rVersion is required for the rstudio backend/);
      assert.equal(await spark.sessionCount(), 0);
      const s = await spark.session({ backend: 'spark', cluster: cluster('c5.2xlarge') });
      assert.equal(s.interactiveSessionType, 'awsJupyterSparkNotebook');
      assert.deepEqual(s.interactiveSessionConfiguration.cluster, cluster('c5.2xlarge'));
      const r = await spark.session({ backend: 'rstudio', rVersion: '4.4.2' });
      assert.deepEqual(
        [r.interactiveSessionType, r.rVersion, r.interactiveSessionConfiguration.rVersion],
        ['awsRstudio', '4.4.2', '4.4.2'],
      );
    } finally {
      await spark.close();
    }
  });
});
