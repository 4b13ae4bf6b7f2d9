// The queue of a bench server's jobs, read from its database (B7, busy-neighbour): how many wait,
// topping it up, and which jobs ended in a window.
import { databaseUrlOf, openStore } from '@runyard/server';

/** The jobs that ended in [from, to): how many, and their mean milliseconds from start to end. One read of the window. */
export async function endedBetween(config, from, to) {
  const store = openStore(databaseUrlOf(config));
  try {
    const rows = await store.db
      .selectFrom('jobs')
      .select(['start_time', 'end_time'])
      .where('end_time', '>=', new Date(from).toISOString())
      .where('end_time', '<', new Date(to).toISOString())
      .execute();
    const ms = rows.filter((r) => r.start_time).map((r) => Date.parse(r.end_time) - Date.parse(r.start_time));
    return { count: rows.length, meanRunMs: ms.reduce((x, y) => x + y, 0) / Math.max(1, ms.length) };
  } finally {
    await store.close();
  }
}

/** How many jobs are queued. */
export async function queuedNow(config) {
  const store = openStore(databaseUrlOf(config));
  try {
    const row = await store.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  } finally {
    await store.close();
  }
}

/**
 * Submits trivial bash jobs (`true`) to a startJobServer server until at least `target` are queued.
 * Counted again after each pass: the scheduler runs jobs while they are submitted (on a fast host a
 * pass of 2,500 took 7 s, in which 1,000 ran, and B7's idle window that followed ran dry and
 * understated the idle rate by a quarter).
 */
export async function topUpQueue(s, target) {
  for (let count = target - (await queuedNow(s.server.config)); count > 0; count = target - (await queuedNow(s.server.config))) {
    for (let i = 0; i < count; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, count - i) }, () => s.call('POST', `/api/v2/jobs?teamId=${s.ws}`, s.body('true'))),
      );
    }
  }
}
