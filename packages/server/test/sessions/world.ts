import assert from 'node:assert/strict';
import type { Tenant } from '../../../../test/support/server.js';
import { findOnPath } from '../../src/executors/find-executable.js';
import { explorerWorld, type ExplorerWorld, type Reply } from '../file-explorer/world.js';
import { call } from '../wire.js';

/** Whether jupyter is on this machine's PATH (the default task PATH of the test servers): Jupyter sessions can then be created. */
export const JUPYTER_INSTALLED = findOnPath('jupyter', process.env.PATH ?? '') !== null;

/** The command a test server is given for VS Code sessions (never run: nothing starts sessions in these tests). */
export const VSCODE_COMMAND = 'code-server --auth none';

export interface SessionWorld extends ExplorerWorld {
  /** `POST /api/v1/interactive-sessions?teamId=<ws>` as `tenant` (default the admin). */
  create(body: unknown, tenant?: Tenant): Promise<Reply>;
  /** Creates a session (VS Code unless the configuration says otherwise) and returns its document. */
  session(conf?: Record<string, unknown>, tenant?: Tenant, extra?: Record<string, unknown>): Promise<Record<string, any>>;
  getSession(id: string, tenant?: Tenant): Promise<Reply>;
  abort(id: string, body?: unknown, tenant?: Tenant): Promise<Reply>;
  resume(id: string, body?: unknown, tenant?: Tenant): Promise<Reply>;
  list(query?: string, tenant?: Tenant): Promise<Reply>;
  /** Sets a session's status directly, as its runner would have moved it. */
  setSessionStatus(id: string, status: string): Promise<void>;
  row(id: string): Promise<Record<string, any>>;
  sessionCount(): Promise<number>;
}

/** An auto-shutdown date `hours` from now, as the public client writes it (UTC, microseconds, Z). */
export function shutdownIn(hours: number): string {
  return new Date(Date.now() + hours * 3_600_000).toISOString().replace('Z', '123Z');
}

/** A create body as the public client's build_session_payload makes it. */
export function createBody(projectId: string, conf: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    interactiveSessionConfiguration: {
      name: 'my-session',
      backend: 'vscode',
      executionPlatform: 'aws',
      instanceType: 'c5.xlarge',
      isCostSaving: false,
      storageSizeInGb: 500,
      storageMode: 'regular',
      visibility: 'workspace',
      execution: { computeCostLimit: -1, autoShutdownAtDate: shutdownIn(12) },
      ...conf,
    },
    dataItems: [],
    fileSystemIds: [],
    fuseFileSystems: [],
    projectId,
    ...extra,
  };
}

/** A job world (project "demo", File Explorer) whose server offers VS Code sessions; `env` on top. */
export async function sessionWorld(env: NodeJS.ProcessEnv = {}): Promise<SessionWorld> {
  const w = await explorerWorld({ RUNYARD_SESSION_COMMAND_VSCODE: VSCODE_COMMAND, ...env });
  const as = (t?: Tenant) => t?.apikey ?? w.s.admin.apikey;
  const T = `teamId=${w.ws}`;
  const world: SessionWorld = {
    ...w,
    create: (body, t) => call(w.s, 'POST', `/api/v1/interactive-sessions?${T}`, body, as(t)),
    async session(conf = {}, t, extra = {}) {
      const r = await world.create(createBody(w.projectId, conf, extra), t);
      assert.equal(r.statusCode, 201, r.body);
      return r.json();
    },
    getSession: (id, t) => call(w.s, 'GET', `/api/v2/interactive-sessions/${id}?${T}`, undefined, as(t)),
    abort: (id, body = { uploadOnClose: true, forceAbort: false }, t) =>
      call(w.s, 'PUT', `/api/v1/interactive-sessions/${id}/abort?${T}`, body, as(t)),
    resume: (id, body = { dataItems: [], fileSystemIds: [] }, t) =>
      call(w.s, 'PUT', `/api/v1/interactive-sessions/${id}/resume?${T}`, body, as(t)),
    list: (query = '', t) => call(w.s, 'GET', `/api/v3/interactive-sessions?${T}${query ? `&${query}` : ''}`, undefined, as(t)),
    async setSessionStatus(id, status) {
      await w.s.store.db.updateTable('interactive_sessions').set({ status }).where('id', '=', id).execute();
    },
    row: (id) => w.s.store.db.selectFrom('interactive_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
    async sessionCount() {
      const r = await w.s.store.db
        .selectFrom('interactive_sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
  };
  return world;
}
