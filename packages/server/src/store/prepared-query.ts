import { createQueryId, type Compilable, type CompiledQuery, type Insertable, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './schema.js';

/**
 * A query of a hot path, built and compiled once per database kind and then run with new values.
 * Kysely builds a frozen tree and compiles it to SQL on every call: on a submission's ten short
 * queries that was a seventh of the API thread's time (1.3 s of 9.4 s in a B2 run's profile). The builder is given slots in
 * place of the values; each slot must become one parameter of the SQL as it is (not part of a
 * larger value, nor a list), which prepare checks. A query whose shape depends on its values
 * (optional filters, lists of any length) is not one for this.
 *
 * Kept per dialect adapter, which a Kysely instance shares with its transactions: the databases
 * here have no plugins that would rewrite a query, so its SQL depends on the dialect alone.
 */
export interface PreparedQuery<P, R> {
  /** Every row. */
  execute(db: Kysely<Database>, values: P): Promise<R[]>;
  /** The first row, if any. */
  executeTakeFirst(db: Kysely<Database>, values: P): Promise<R | undefined>;
  /** A write: how many rows it changed. */
  run(db: Kysely<Database>, values: P): Promise<{ numAffectedRows: bigint }>;
}

const SLOT = '\u0000runyard-slot:';

interface Template {
  query: CompiledQuery;
  /** Per parameter: the name of the slot it takes, or the constant the builder gave. */
  parameters: ({ slot: string } | { constant: unknown })[];
}

export function preparedQuery<P extends Record<string, unknown>, R>(
  build: (db: Kysely<Database>, slots: P) => Compilable<R>,
): PreparedQuery<P, R> {
  const templates = new WeakMap<object, Template>();
  const run = (db: Kysely<Database>, values: P): Promise<QueryResult<R>> => {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (!template) templates.set(adapter, (template = compileTemplate(db, build)));
    return db.executeQuery(withValues<R>(template, (slot) => values[slot]));
  };
  return {
    execute: async (db, values) => (await run(db, values)).rows,
    executeTakeFirst: async (db, values) => (await run(db, values)).rows[0],
    run: async (db, values) => ({ numAffectedRows: (await run(db, values)).numAffectedRows ?? 0n }),
  };
}

/** Per adapter, the INSERT of each table, set of columns and number of rows met so far. */
const insertTemplates = new WeakMap<object, Map<string, Template>>();

/**
 * Inserts rows that all have the same columns (a column whose value is undefined is left out, as
 * Kysely does), with the statement compiled once per table, columns and number of rows.
 */
export async function insertRows<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  rows: Insertable<Database[T]>[],
): Promise<void> {
  if (!rows.length) return;
  const entries = rows.map((row) => Object.entries(row).filter(([, value]) => value !== undefined));
  const columns = entries[0].map(([column]) => column);
  if (entries.some((row) => row.length !== columns.length || row.some(([column], i) => column !== columns[i])))
    throw new Error(`insertRows: the rows for ${table} do not all have the same columns`);
  const adapter = db.getExecutor().adapter;
  let byShape = insertTemplates.get(adapter);
  if (!byShape) insertTemplates.set(adapter, (byShape = new Map()));
  const shape = `${table}|${rows.length}|${columns.join(',')}`;
  let template = byShape.get(shape);
  if (!template) {
    template = compileTemplate(db, (db, slots: Record<string, unknown>) =>
      db
        .insertInto(table)
        .values(rows.map((_, i) => Object.fromEntries(columns.map((c, j) => [c, slots[`${i}.${j}`]])) as Insertable<Database[T]>)),
    );
    byShape.set(shape, template);
  }
  await db.executeQuery(
    withValues(template, (slot) => {
      const [i, j] = slot.split('.');
      return entries[Number(i)][Number(j)][1];
    }),
  );
}

function withValues<R>(template: Template, valueOf: (slot: string) => unknown): CompiledQuery<R> {
  return {
    sql: template.query.sql,
    query: template.query.query,
    queryId: createQueryId(),
    parameters: template.parameters.map((p) => ('slot' in p ? valueOf(p.slot) : p.constant)),
  };
}

function compileTemplate<P extends Record<string, unknown>>(
  db: Kysely<Database>,
  build: (db: Kysely<Database>, slots: P) => Compilable<unknown>,
): Template {
  const asked = new Set<string>();
  const slots = new Proxy({} as P, {
    get: (_, key) => {
      asked.add(String(key));
      return `${SLOT}${String(key)}`;
    },
  });
  const query = build(db, slots).compile();
  const used = new Set<string>();
  const parameters = query.parameters.map((value) => {
    if (typeof value === 'string' && value.startsWith(SLOT)) {
      const slot = value.slice(SLOT.length);
      used.add(slot);
      return { slot };
    }
    if (typeof value === 'string' && value.includes(SLOT))
      throw new Error(`prepared query: a slot is inside a larger value in ${query.sql}`);
    return { constant: value };
  });
  const unused = [...asked].filter((slot) => !used.has(slot));
  if (unused.length) throw new Error(`prepared query: slot ${unused.join(', ')} is not a parameter of ${query.sql}`);
  return { query, parameters };
}
