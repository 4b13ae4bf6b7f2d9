import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { buildApp, migrateToLatest, openStore } from '@runyard/server';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { startTestServer, type TestServer } from '../../../../test/support/server.js';
import { call } from '../wire.js';

export interface EngineWorld {
  s: TestServer;
  mirror: GitMirror;
  ws: string;
  projectId: string;
  wdlWorkflowId: string;
  /** The server on the same database and data directory, as after a restart of Runyard (s is replaced). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** An empty directory: a task PATH on which no WDL engine is installed. */
export function emptyPath(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'runyard-no-engine-'));
}

/**
 * A server (no scheduler: jobs stay queued) with a project "demo" and a WDL workflow "hello"
 * imported from a local bare repository.
 */
export async function engineWorld(env: NodeJS.ProcessEnv = {}): Promise<EngineWorld> {
  const mirror = createGitMirror();
  const repo = mirror.create('acme/hello-wdl', {
    files: {
      'hello.wdl':
        'version 1.0\nworkflow hello {\n  input { String name }\n  call greet { input: name = name }\n}\n' +
        'task greet {\n  input { String name }\n  command <<< echo "hello ~{name}" >>>\n  output { String out = read_string(stdout()) }\n}\n',
    },
  });
  let s = await startTestServer({ env: { RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites), ...env } });
  const ws = s.admin.workspaceId;
  let project, wf;
  try {
    project = await call(s, 'POST', `/api/v1/projects?teamId=${ws}`, { name: 'demo' });
    assert.equal(project.statusCode, 200, project.body);
    wf = await call(s, 'POST', `/api/v2/workflows?teamId=${ws}`, { name: 'hello', repository: { url: repo.url, platform: 'github' } });
    assert.equal(wf.statusCode, 200, wf.body);
    const row = await s.store.db.selectFrom('workflows').select('workflow_type').where('id', '=', wf.json()._id).executeTakeFirstOrThrow();
    assert.equal(row.workflow_type, 'wdl');
  } catch (e) {
    await s.close();
    mirror.remove();
    throw e;
  }
  const world: EngineWorld = {
    s,
    mirror,
    ws,
    projectId: project.json()._id,
    wdlWorkflowId: wf.json()._id,
    async restart() {
      await s.close();
      const store = openStore(s.config.databaseUrl);
      await migrateToLatest(store.db);
      const logStream = new Writable({
        write(chunk, _enc, done) {
          s.logs.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      });
      const app = await buildApp(s.config, { store, logStream });
      await app.ready();
      s = {
        ...s,
        app,
        store,
        async close() {
          await app.close();
          await store.close();
        },
      };
      world.s = s;
    },
    async close() {
      await world.s.close();
      mirror.remove();
    },
  };
  return world;
}

/** A WDL job's body as the public client builds it. */
export function wdlBody(w: EngineWorld, extra: Record<string, unknown> = {}) {
  return {
    parameters: [{ prefix: '', name: 'hello.name', parameterKind: 'textValue', textValue: 'world' }],
    project: w.projectId,
    workflow: w.wdlWorkflowId,
    name: 'wdl-job',
    resumable: true,
    saveProcessLogs: true,
    executionPlatform: 'aws',
    storageSizeInGb: 500,
    execution: { computeCostLimit: 30.0, optim: 'test' },
    instanceType: 'c5.xlarge',
    masterInstance: { requestedInstance: { type: 'c5.xlarge' } },
    batch: { enabled: false },
    cromwellCloudResources: null,
    ...extra,
  };
}

/** The engine server as the admin's API key reads it. */
export async function engineStatus(w: EngineWorld): Promise<Record<string, any>> {
  const r = await call(w.s, 'GET', `/api/v1/cromwell?teamId=${w.ws}`);
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

/** A request with the Cromwell header of an engine token: Accept and Authorization, no apikey. */
export function withToken(s: TestServer, method: 'GET' | 'PUT' | 'POST', url: string, token: string) {
  return s.app.inject({ method, url, headers: { accept: 'application/json', authorization: `Bearer ${token}` } });
}
