import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { startServer, type RunningServer } from '@runyard/server';
import { TEST_CAPACITY } from './capacity.js';
import { freshDatabaseUrl } from './database.js';
import { TEST_JOB_IMAGES } from './job-images.js';
import { printedValue } from './printed-value.js';

/**
 * A server as `npm start` runs it, for the Slurm tests: its data directory on the cluster's shared
 * directory (so that nodes see the jobs' folders), a fresh database, short scheduler and Slurm polls,
 * room for many jobs; `env` adds to or overrides that. Answers it with its first admin's key and workspace.
 */
export async function startSlurmTestServer(
  shared: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ server: RunningServer; apikey: string; ws: string }> {
  const lines: string[] = [];
  const server = await startServer(
    {
      RUNYARD_DATA_DIR: mkdtempSync(path.join(shared, 'data-')),
      RUNYARD_PORT: '0',
      RUNYARD_DATABASE_URL: await freshDatabaseUrl(),
      RUNYARD_LOG_LEVEL: 'silent',
      RUNYARD_SCHEDULER_POLL_MS: '200',
      RUNYARD_SLURM_POLL_MS: '300',
      ...TEST_CAPACITY,
      ...TEST_JOB_IMAGES,
      ...env,
    },
    (line) => lines.push(line),
  );
  return { server, apikey: printedValue(lines, 'API key')!, ws: printedValue(lines, 'Workspace id')! };
}
