// Copies of one finished job, straight into the database (B1 jobs, B5): as many rows as a busy
// workspace holds, with ids and times one second apart, oldest first.
import { newObjectId } from '@runyard/contract';
import { openStore } from '@runyard/server';

export async function storeJobCopies(databaseUrl, templateId, count) {
  const store = openStore(databaseUrl);
  try {
    const row = await store.db.selectFrom('jobs').selectAll().where('id', '=', templateId).executeTakeFirstOrThrow();
    const start = Date.now() - count * 1000;
    await store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < count; i += 300) {
        const rows = Array.from({ length: Math.min(300, count - i) }, (_, k) => {
          const time = new Date(start + (i + k) * 1000).toISOString();
          return {
            ...row,
            id: newObjectId(new Date(start + (i + k) * 1000)),
            name: `job-${i + k}`,
            created_at: time,
            updated_at: time,
            start_time: time,
            end_time: time,
          };
        });
        await trx.insertInto('jobs').values(rows).execute();
      }
      await trx
        .updateTable('projects')
        .set({ job_count: count + 1 })
        .where('id', '=', row.project_id)
        .execute();
    });
  } finally {
    await store.close();
  }
}
