import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunyardClient } from '@runyard/client';
import { Scheduler } from '@runyard/server';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { startTestServer, type TestServer } from '../../../../test/support/server.js';
import { connectionArgs } from './connection-args.js';

/** test/fixtures/bin: the fixture `nextflow` that the tasks find first on their PATH. */
export const FIXTURE_BIN = fileURLToPath(new URL('../../../../test/fixtures/bin', import.meta.url));

export interface JobWorld {
  s: TestServer;
  /** The admin's connection flags for the CLI. */
  conn: string[];
  ws: string;
  /** A client with the admin key, for setting up and checking. */
  client: RunyardClient;
  mirror: GitMirror;
  /** Commit of each branch of acme/rnatoy. */
  heads: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A listening server that runs jobs (a scheduler on its database, polling every 50 ms, tasks with
 * the fixture nextflow first on their PATH), with a project "demo", a container workflow "ubuntu"
 * and a Nextflow workflow "rnatoy" imported from a local git mirror (branch dev, tag v1.0).
 */
export async function jobWorld(): Promise<JobWorld> {
  const mirror = createGitMirror();
  const repo = mirror.create('acme/rnatoy', {
    files: { 'main.nf': 'workflow {}\n', 'nextflow.config': '' },
    branches: { dev: { 'dev.txt': 'dev' } },
    tags: { 'v1.0': { message: 'release' } },
  });
  const s = await startTestServer({
    listen: true,
    env: {
      RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites),
      RUNYARD_SCHEDULER_POLL_MS: '50',
      RUNYARD_ABORT_GRACE_MS: '1000',
      RUNYARD_TASK_PATH: `${FIXTURE_BIN}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
      PATH: process.env.PATH,
    },
  });
  // test/support/server.ts builds the app without a scheduler; this one claims what is submitted.
  const scheduler = new Scheduler({ store: s.store, config: s.config });
  scheduler.start();
  const ws = s.admin.workspaceId;
  const client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
  await client.createProject(ws, 'demo');
  await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
  await client.importWorkflow(ws, { workflowUrl: repo.url, workflowName: 'rnatoy', repositoryPlatform: 'github' });
  return {
    s,
    conn: connectionArgs(s.url, s.admin.apikey, ws),
    ws,
    client,
    mirror,
    heads: repo.heads,
    async close() {
      await scheduler.stop();
      client.close();
      await s.close();
      mirror.remove();
    },
  };
}
