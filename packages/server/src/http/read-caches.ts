import { createHash } from 'node:crypto';
import type { RouteId } from '@runyard/contract';
import { LAST_USED_RESOLUTION_MS } from '../services/api-keys.js';
import type { AuthUser } from '../services/context.js';
import type { Store } from '../store/database.js';
import { VersionedCache } from '../store/versioned-cache.js';

/**
 * Replies that are a function of the database, the caller (user, workspace, role) and the
 * request's query alone: no clock, no file, no other state. They are kept until the next commit.
 * A route joins this list only when that holds for every field of its reply.
 */
const CACHED_REPLY_ROUTES: ReadonlySet<RouteId> = new Set<RouteId>(['projectList', 'jobList']);

const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/**
 * What the API thread keeps between requests while nothing is committed to the database (SQLite
 * files only: PostgreSQL has no commit counter to ask): who an API key is, a user's role in a
 * workspace, and the serialized replies of CACHED_REPLY_ROUTES. A list page that nothing has
 * changed is then answered without a query (B1).
 */
export class ReadCaches {
  private readonly users = new VersionedCache<{ user: AuthUser; checkedAt: number }>({ maxEntries: 1000 });
  private readonly roles = new VersionedCache<string>({ maxEntries: 10_000 });
  private readonly replies = new VersionedCache<Buffer>({ maxEntries: 256, maxWeight: MAX_REPLY_BYTES, weigh: (b) => b.length });

  constructor(private readonly version: () => number) {}

  /**
   * The key's user, as authenticate() found it since the last commit, and at most
   * LAST_USED_RESOLUTION_MS ago (so that authenticate still records the key's use). A refused key is never kept.
   */
  async user(apikey: string, authenticate: () => Promise<AuthUser | null>): Promise<AuthUser | null> {
    // Kept by digest: the map holds no key.
    const id = createHash('sha256').update(apikey).digest('base64');
    const version = this.version();
    const kept = this.users.get(id, version);
    if (kept && Date.now() - kept.checkedAt < LAST_USED_RESOLUTION_MS) return kept.user;
    const checkedAt = Date.now();
    const user = await authenticate();
    if (user) this.users.set(id, { user, checkedAt }, version);
    return user;
  }

  /** The user's role in the workspace; lookup throws for a non-member (never kept). */
  async role(userId: string, workspaceId: string, lookup: () => Promise<string>): Promise<string> {
    const id = `${userId} ${workspaceId}`;
    const version = this.version();
    const kept = this.roles.get(id, version);
    if (kept !== undefined) return kept;
    const role = await lookup();
    this.roles.set(id, role, version);
    return role;
  }

  /** Whether replies of this route are kept. */
  keepsReplies(route: RouteId): boolean {
    return CACHED_REPLY_ROUTES.has(route);
  }

  /** The serialized reply kept under key, or the one that make() serializes, kept for the next request (as bytes: sent without encoding). */
  async reply(key: string, make: () => Promise<string>): Promise<Buffer> {
    const version = this.version();
    const kept = this.replies.get(key, version);
    if (kept !== undefined) return kept;
    const payload = Buffer.from(await make());
    this.replies.set(key, payload, version);
    return payload;
  }
}

/** The caches of a store that can say when it was last committed to, else undefined (every read goes to the database). */
export function readCachesOf(store: Store): ReadCaches | undefined {
  return store.dataVersion && new ReadCaches(store.dataVersion);
}
