import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Tenant } from '../../../../test/support/server.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { DeletionWorker } from '../../src/services/deletion-worker.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { bashBody, jobWorld, nextflowBody, submit, type JobWorld } from '../jobs/fixtures.js';
import { call } from '../wire.js';

export type Reply = Awaited<ReturnType<typeof call>>;

/** A job world with helpers for the File Explorer: requests as a tenant, job data on disk, the deletion worker. */
export interface ExplorerWorld extends JobWorld {
  get(url: string, tenant?: Tenant): Promise<Reply>;
  req(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, tenant?: Tenant): Promise<Reply>;
  /** Submits a job and returns its id and document. */
  job(extra?: Record<string, unknown>, kind?: 'bash' | 'nextflow'): Promise<{ id: string; doc: any }>;
  doc(id: string): Promise<any>;
  setStatus(jobId: string, status: string): Promise<void>;
  /** Writes a file into a job's local store directory (logs, results or work). */
  writeJobFile(jobId: string, relative: string, content: string): string;
  datasets(projectId?: string): Promise<Record<string, any>>;
  worker: DeletionWorker;
}

export async function explorerWorld(env: NodeJS.ProcessEnv = {}): Promise<ExplorerWorld> {
  const w = await jobWorld(env);
  const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, tenant?: Tenant) =>
    call(w.s, method, url, body, tenant?.apikey ?? w.s.admin.apikey);
  const worker = new DeletionWorker({ db: w.s.store.db, blobs: createBlobStore(w.s.config), pollMs: 50 });
  const doc = async (id: string) => {
    const r = await req('GET', `/api/v1/jobs/${id}?teamId=${w.ws}`);
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  };
  return {
    ...w,
    req,
    get: (url, tenant) => req('GET', url, undefined, tenant),
    async job(extra = {}, kind = 'bash') {
      const r = await submit(w, kind === 'bash' ? bashBody(w, extra) : nextflowBody(w, extra));
      assert.equal(r.statusCode, 200, r.body);
      const id = r.json().jobId as string;
      return { id, doc: await doc(id) };
    },
    doc,
    async setStatus(jobId, status) {
      await w.s.store.db.updateTable('jobs').set({ status }).where('id', '=', jobId).execute();
    },
    writeJobFile(jobId, relative, content) {
      const file = path.join(jobPaths(w.s.config.dataDir, w.ws, jobId).root, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    async datasets(projectId = w.projectId) {
      const r = await req('GET', `/api/v2/datasets?projectId=${projectId}&teamId=${w.ws}`);
      assert.equal(r.statusCode, 200, r.body);
      return Object.fromEntries(r.json().datasets.map((d: { kind: string }) => [d.kind, d]));
    },
    worker,
    async close() {
      await worker.stop();
      await w.close();
    },
  };
}
