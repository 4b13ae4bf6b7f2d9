// A server that runs jobs for real (scheduler, local executor) and deletes job data for real (the
// deletion worker), reached through a recording proxy; a project "demo" and a container workflow
// "ubuntu". Shared by the SDK and CLI tests of job data, storage browsing and the File Explorer.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RunyardClient } from '@runyard/client';
import { startRecordingProxy, type RecordingProxy } from '../../../test/support/recording-proxy.js';
import { startAzurite, type AzuriteServer } from '../../../test/support/azurite.js';
import { startRunningServer, type RunningServer } from '../../../test/support/running-server.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { DeletionWorker } from '../../server/src/services/deletion-worker.js';
import { createBlobStore } from '../../server/src/storage/registry.js';

/** What the job of `runJob` writes: a log line, `results/out.txt` and `summary.txt` in its results directory. */
export const RESULTS_COMMAND =
  'mkdir -p "$RUNYARD_RESULTS_DIR/results" && echo "hello results" > "$RUNYARD_RESULTS_DIR/results/out.txt" && echo "summary" > "$RUNYARD_RESULTS_DIR/summary.txt" && echo "sum is $((2+3))"';

export interface JobDataWorld {
  s: RunningServer;
  proxy: RecordingProxy;
  /** A client through the proxy, with the admin's key. */
  client: RunyardClient;
  ws: string;
  projectId: string;
  worker: DeletionWorker;
  /** The workspace's bucket on the local store. */
  bucket: string;
  /** `METHOD /path?query` of every request since the proxy had `n` (the workspace id as W, decoded). */
  since(n: number): string[];
  /** Submits a bash job running `command` and waits until it finishes; its id. */
  runJob(command?: string, jobName?: string): Promise<string>;
  /** The directory of a job's logs, results or work on the local store. */
  jobDir(jobId: string, part: 'logs' | 'results' | 'work'): string;
  /** Polls a folder until its status is `status` (10 s at most); the last folder seen. */
  waitFolderStatus(folderId: string, status: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function jobDataWorld(): Promise<JobDataWorld> {
  const s = await startRunningServer();
  const worker = new DeletionWorker({ db: s.store.db, blobs: createBlobStore(s.config), pollMs: 50 });
  worker.start();
  const proxy = await startRecordingProxy(s.url);
  const client = new RunyardClient({ platformUrl: proxy.url, apikey: s.admin.apikey });
  const ws = s.admin.workspaceId;
  const projectId = await client.createProject(ws, 'demo');
  await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
  const bucket = `runyard-${ws}`;
  const world: JobDataWorld = {
    s,
    proxy,
    client,
    ws,
    projectId,
    worker,
    bucket,
    since: (n) => proxy.requests.slice(n).map((r) => `${r.method} ${decodeURIComponent(r.url).split(ws).join('W')}`),
    async runJob(command = RESULTS_COMMAND, jobName = 'results-job') {
      const id = await client.sendJob({
        workspaceId: ws,
        projectName: 'demo',
        workflowName: 'ubuntu',
        workflowType: 'docker',
        command,
        jobName,
      });
      const done = await client.waitJobCompletion(id, ws, { waitTime: 60, requestInterval: 0.1 });
      if (done.status !== 'completed' && command === RESULTS_COMMAND) throw new Error(`job ${id} ended ${done.status}`);
      return id;
    },
    jobDir: (jobId, part) => path.join(s.config.dataDir, 'storage', bucket, ws, 'jobs', jobId, part),
    async waitFolderStatus(folderId, status) {
      let last: Record<string, unknown> = {};
      for (let i = 0; i < 200; i++) {
        const [folder] = await client.getFolderDeletionStatus(folderId, ws);
        last = folder ?? {};
        if (last.status === status) return last;
        await sleep(50);
      }
      throw new Error(`folder ${folderId} is ${String(last.status)}, not ${status}`);
    },
    async close() {
      client.close();
      await proxy.close();
      await worker.stop();
      await s.close();
    },
  };
  return world;
}

/**
 * A server keeping its data in Azure Blob Storage (Azurite), without a scheduler: jobs are submitted,
 * their data written to the container directly and their status set, as a finished job would leave them.
 */
export interface AzureWorld {
  s: TestServer;
  azurite: AzuriteServer;
  proxy: RecordingProxy;
  client: RunyardClient;
  ws: string;
  projectId: string;
  container: string;
  /** `az://<account>.blob.core.windows.net/<container>/` */
  base: string;
  since(n: number): string[];
  /** A completed job whose logs, results (`results/out.txt`, `summary.txt`) and work directory are in the container. */
  finishedJob(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function azureWorld(): Promise<AzureWorld> {
  const azurite = await startAzurite();
  const s = await startTestServer({
    listen: true,
    env: { RUNYARD_STORAGE_BACKEND: 'azure', RUNYARD_AZURE_CONNECTION_STRING: azurite.connectionString },
  });
  const blobs = createBlobStore(s.config);
  const proxy = await startRecordingProxy(s.url);
  const client = new RunyardClient({ platformUrl: proxy.url, apikey: s.admin.apikey });
  const ws = s.admin.workspaceId;
  const projectId = await client.createProject(ws, 'demo');
  await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
  const container = `runyard-${ws}`;
  await blobs.ensureBucket(container);
  return {
    s,
    azurite,
    proxy,
    client,
    ws,
    projectId,
    container,
    base: `az://${azurite.accountName}.blob.core.windows.net/${container}/`,
    since: (n) => proxy.requests.slice(n).map((r) => `${r.method} ${decodeURIComponent(r.url).split(ws).join('W')}`),
    async finishedJob(name) {
      const id = await client.sendJob({
        workspaceId: ws,
        projectName: 'demo',
        workflowName: 'ubuntu',
        workflowType: 'docker',
        command: 'true',
        jobName: name,
      });
      const files: Record<string, string> = {
        'logs/stdout.txt': 'out\n',
        'logs/.nextflow.log': 'log\n',
        'logs/trace.txt': 'trace\n',
        'results/results/out.txt': 'hello results\n',
        'results/summary.txt': 'summary\n',
        'work/ab/cdef/.command.sh': 'true\n',
      };
      for (const [key, text] of Object.entries(files)) await blobs.put(container, `${ws}/jobs/${id}/${key}`, Buffer.from(text));
      const now = new Date().toISOString();
      await s.store.db.updateTable('jobs').set({ status: 'completed', start_time: now, end_time: now }).where('id', '=', id).execute();
      return id;
    },
    async close() {
      client.close();
      await proxy.close();
      await s.close();
      await azurite.stop();
    },
  };
}
