import { buildOpenApiDocument, isoNow } from '@runyard/contract';
import { sql } from 'kysely';
import type { Handlers } from '../http/handler.js';

export const systemHandlers: Handlers = {
  health: async (_req, { db, store, version }) => {
    await sql`select 1`.execute(db);
    return { status: 'ok', version, database: store.kind, time: isoNow() };
  },
  openapi: async (_req, { version }) => buildOpenApiDocument(version),
};
