import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { startRunningServer, type RunningServer } from '../../../../test/support/running-server.js';
import type { Tenant } from '../../../../test/support/server.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { bashBody, nextflowBody, type JobWorld } from '../jobs/fixtures.js';
import { call } from '../wire.js';

/**
 * A running server (scheduler, fixture nextflow) on the storage backend the env chooses, with a
 * project, a container workflow and a Nextflow workflow, and helpers to put files into the File
 * Explorer and run jobs that take them as inputs.
 */
export interface IoWorld {
  s: RunningServer;
  ws: string;
  projectId: string;
  blobs: BlobStore;
  bucket: string;
  datasets: Record<string, { _id: string }>;
  mirror: GitMirror;
  /** The ids jobs/fixtures.ts's bodies need. */
  fixture: JobWorld;
  req(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
    tenant?: Tenant,
  ): Promise<{ statusCode: number; body: string; json(): any }>;
  /** POST /api/runyard/datasets/upload: the new file item. */
  upload(name: string, body: string | Buffer, parentId?: string, tenant?: Tenant & { projectId: string }): Promise<any>;
  mkdir(name: string, parent: { kind: 'Dataset' | 'Folder'; id: string }): Promise<any>;
  submitBash(
    command: string,
    parameters: unknown[],
    extra?: Record<string, unknown>,
  ): Promise<{ statusCode: number; body: string; json(): any }>;
  submitNextflow(parameters: unknown[], extra?: Record<string, unknown>): Promise<{ statusCode: number; body: string; json(): any }>;
  /** Submits, checks the 200, and waits until the job has finished: its document. */
  bash(command: string, parameters: unknown[], extra?: Record<string, unknown>): Promise<any>;
  nextflow(parameters: unknown[], extra?: Record<string, unknown>): Promise<any>;
  /** Waits (bounded) for the job to reach a final status. */
  finished(jobId: string): Promise<any>;
  /** An object of the workspace bucket, as text. */
  read(key: string): Promise<string>;
  readBytes(key: string): Promise<Buffer>;
  jobCount(): Promise<number>;
  close(): Promise<void>;
}

export const FINAL = ['completed', 'failed', 'aborted'];

export async function ioWorld(env: NodeJS.ProcessEnv = {}): Promise<IoWorld> {
  const mirror = createGitMirror();
  const repo = mirror.create('acme/rnatoy', { files: { 'main.nf': 'workflow {}\n', 'nextflow.config': '' } });
  const s = await startRunningServer({
    RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites),
    RUNYARD_SCHEDULER_POLL_MS: '50',
    ...env,
  });
  const ws = s.admin.workspaceId;
  const req: IoWorld['req'] = (method, url, body, tenant) => call(s, method, url, body, tenant?.apikey ?? s.admin.apikey);
  const project = await req('POST', `/api/v1/projects?teamId=${ws}`, { name: 'io' });
  assert.equal(project.statusCode, 200, project.body);
  const docker = await req('POST', '/api/runyard/admin/workflows/docker', {
    workspaceId: ws,
    name: 'ubuntu',
    containerName: 'library/ubuntu:22.04',
  });
  assert.equal(docker.statusCode, 201, docker.body);
  const nf = await req('POST', `/api/v2/workflows?teamId=${ws}`, { name: 'rnatoy', repository: { url: repo.url, platform: 'github' } });
  assert.equal(nf.statusCode, 200, nf.body);
  const projectId = project.json()._id as string;
  const fixture = {
    s,
    mirror,
    ws,
    projectId,
    bashWorkflowId: docker.json()._id,
    nextflowWorkflowId: nf.json()._id,
    heads: repo.heads,
    tagSha: repo.heads.main,
    close: async () => undefined,
  } as JobWorld;
  const dsReply = await req('GET', `/api/v2/datasets?projectId=${projectId}&teamId=${ws}`);
  assert.equal(dsReply.statusCode, 200, dsReply.body);
  const datasets = Object.fromEntries(dsReply.json().datasets.map((d: { kind: string }) => [d.kind, d]));
  const blobs = createBlobStore(s.config);
  const bucket = `runyard-${ws}`;

  const finished = async (jobId: string) => {
    // A hang guard, generous for a loaded machine (a job here takes seconds when idle).
    const until = Date.now() + 180_000;
    for (;;) {
      const r = await req('GET', `/api/v1/jobs/${jobId}?teamId=${ws}`);
      assert.equal(r.statusCode, 200, r.body);
      const doc = r.json();
      if (FINAL.includes(doc.status)) return doc;
      if (Date.now() > until) assert.fail(`job ${jobId} still ${doc.status} after 180 s: ${JSON.stringify(doc.statusMessage ?? null)}`);
      await sleep(50);
    }
  };
  const readBytes = async (key: string) => {
    const chunks: Buffer[] = [];
    for await (const c of await blobs.get(bucket, key)) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  const submitBash: IoWorld['submitBash'] = (command, parameters, extra = {}) =>
    req('POST', `/api/v2/jobs?teamId=${ws}`, bashBody(fixture, { command, parameters, ...extra }));
  const submitNextflow: IoWorld['submitNextflow'] = (parameters, extra = {}) =>
    req('POST', `/api/v2/jobs?teamId=${ws}`, nextflowBody(fixture, { parameters, ...extra }));
  const run = async (reply: Promise<{ statusCode: number; body: string; json(): any }>) => {
    const r = await reply;
    assert.equal(r.statusCode, 200, r.body);
    return finished(r.json().jobId);
  };
  return {
    s,
    ws,
    projectId,
    blobs,
    bucket,
    datasets,
    mirror,
    fixture,
    req,
    async upload(name, body, parentId, tenant) {
      const team = tenant?.workspaceId ?? ws;
      const r = await s.app.inject({
        method: 'POST',
        url: `/api/runyard/datasets/upload?teamId=${team}&projectId=${tenant?.projectId ?? projectId}&name=${encodeURIComponent(name)}${parentId ? `&parentId=${parentId}` : ''}`,
        headers: { apikey: tenant?.apikey ?? s.admin.apikey, 'content-type': 'application/octet-stream' },
        payload: body,
      });
      assert.ok(r.statusCode === 200 || r.statusCode === 201, r.body);
      return r.json();
    },
    async mkdir(name, parent) {
      const r = await req('POST', `/api/v1/folders/virtual?teamId=${ws}`, { name, parent });
      assert.equal(r.statusCode, 201, r.body);
      return r.json();
    },
    submitBash,
    submitNextflow,
    bash: (command, parameters, extra) => run(submitBash(command, parameters, extra)),
    nextflow: (parameters, extra) => run(submitNextflow(parameters, extra)),
    finished,
    read: async (key) => (await readBytes(key)).toString('utf8'),
    readBytes,
    async jobCount() {
      const r = await s.store.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async close() {
      await s.close();
      mirror.remove();
    },
  };
}

/** A dataItem parameter (wire-api §2.3). */
export const fileParam = (name: string, fileId: string) => ({
  prefix: '--',
  name,
  parameterKind: 'dataItem',
  dataItem: { kind: 'File', item: fileId },
});

/** A globPattern parameter (wire-api §2.3). */
export const globParam = (name: string, folderId: string, pattern: string) => ({
  prefix: '--',
  name,
  parameterKind: 'globPattern',
  globPattern: pattern,
  folder: folderId,
});

/** Bytes no shell or encoding may change: quotes, `$`, backticks, a tab, UTF-8, a NUL and no final newline. */
export const AWKWARD = Buffer.concat([Buffer.from('@r1 "q" \'s\' $HOME `id` \\n\tté\n'), Buffer.from([0, 255, 1]), Buffer.from('end')]);

/** The doc's results prefix and bucket (S3 keys) or container (Azure keys). */
export function resultsOf(doc: any): { bucket: string; prefix: string } {
  return doc.results.s3BucketName
    ? { bucket: doc.results.s3BucketName, prefix: doc.results.s3Prefix }
    : { bucket: doc.results.blobContainerName, prefix: doc.results.blobPrefix };
}

export function logsOf(doc: any): { bucket: string; prefix: string } {
  return doc.logs.s3BucketName
    ? { bucket: doc.logs.s3BucketName, prefix: doc.logs.s3Prefix }
    : { bucket: doc.logs.blobContainerName, prefix: doc.logs.blobPrefix };
}
