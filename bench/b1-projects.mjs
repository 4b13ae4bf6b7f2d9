// B1 for issue 2 (../shared/design/performance.md): `GET /api/v2/projects` with 10,000 projects
// stored, 100 per page, against a bare node:http server answering the same JSON.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isoNow, newObjectId } from '@runyard/contract';
import { databaseUrlOf, openStore, startServer } from '@runyard/server';
import { measureAgainstBare } from './lib/against-bare.mjs';
import { scratchDir } from './lib/scratch.mjs';

const PROJECTS = 10_000;

/** Inserts the projects in one transaction, straight into the server's database. */
async function insertProjects(config, workspaceId) {
  const store = openStore(databaseUrlOf(config));
  try {
    const { id: userId } = await store.db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow();
    const start = Date.now() - PROJECTS * 1000;
    const rows = Array.from({ length: PROJECTS }, (_, i) => {
      const at = new Date(start + i * 1000);
      const time = isoNow(at);
      return {
        id: newObjectId(at),
        workspace_id: workspaceId,
        name: `project-${String(i).padStart(5, '0')}`,
        user_id: userId,
        created_at: time,
        updated_at: time,
      };
    });
    await store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500)
        await trx
          .insertInto('projects')
          .values(rows.slice(i, i + 500))
          .execute();
    });
  } finally {
    await store.close();
  }
}

export async function run() {
  const dataDir = scratchDir('runyard-bench-');
  const server = await startServer(
    { RUNYARD_DATA_DIR: dataDir, RUNYARD_HOST: '127.0.0.1', RUNYARD_PORT: '0', RUNYARD_LOG_LEVEL: 'warn' },
    () => {},
  );
  try {
    const admin = JSON.parse(readFileSync(path.join(dataDir, 'initial-admin.json'), 'utf8'));
    await insertProjects(server.config, admin.workspaceId);

    const route = `/api/v2/projects?teamId=${admin.workspaceId}&page=1&pageSize=100`;
    const headers = { apikey: admin.apikey };
    const reply = await fetch(server.url + route, { headers });
    const body = await reply.text();
    const parsed = JSON.parse(body);
    if (reply.status !== 200 || parsed.total !== PROJECTS || parsed.projects.length !== 100) {
      throw new Error(`unexpected reply ${reply.status}: total ${parsed.total}, ${parsed.projects?.length} projects`);
    }
    await measureAgainstBare({
      name: 'B1 project list',
      what: `B1 GET /api/v2/projects, ${PROJECTS} projects on SQLite, pageSize=100`,
      url: server.url,
      route,
      headers,
      body,
    });
  } finally {
    await server.close();
  }
}
