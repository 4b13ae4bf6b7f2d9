import { RunyardClient } from '@runyard/client';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { startRunningServer } from '../../../../test/support/running-server.js';
import type { TestServer } from '../../../../test/support/server.js';
import { connectionArgs } from './connection-args.js';

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
    // The profile job-run's test asks for: Nextflow refuses an undeclared one.
    files: { 'main.nf': 'workflow {}\n', 'nextflow.config': 'profiles {\n  test { params.small = true }\n}\n' },
    branches: { dev: { 'dev.txt': 'dev' } },
    tags: { 'v1.0': { message: 'release' } },
  });
  const s = await startRunningServer({ RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites) });
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
      client.close();
      await s.close();
      mirror.remove();
    },
  };
}
