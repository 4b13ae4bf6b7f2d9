import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** A workspace's WDL engine server as the scheduler reads it (services/engine-servers.ts keeps it). */
export interface EngineServerRecord {
  id: string;
  driver: string;
  status: string;
  url: string | null;
  /** The process of a server Runyard runs (engines/wdl/cromwell-server.ts), as JSON; null for others. */
  process_json: string | null;
}

export async function engineServerOf(db: Kysely<Database>, workspaceId: string): Promise<EngineServerRecord | null> {
  const row = await db
    .selectFrom('engine_servers')
    .select(['id', 'driver', 'status', 'url', 'process_json'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row ?? null;
}
