import { sql, type DatabaseIntrospector, type Kysely, type TableMetadata } from 'kysely';

/**
 * The Kysely instance the migrator is given on PostgreSQL: the same database, except that its
 * introspection sees the tables of one schema only, by name. The migrator asks it only whether
 * its own two tables exist, and Kysely's PostgreSQL introspector answers by reading every column
 * of every table in every schema (with a function call per column): 1.2 s on a database with
 * 350 schemas, twice per start, and more as a shared database grows.
 */
export function withSchemaIntrospection<DB>(db: Kysely<DB>, schema: string): Kysely<DB> {
  const introspector: DatabaseIntrospector = {
    getSchemas: () => db.introspection.getSchemas(),
    getTables: async () => {
      const { rows } = await sql<{ name: string; is_view: boolean }>`
        select c.relname as name, c.relkind = 'v' as is_view
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${schema} and c.relkind in ('r', 'v', 'p')`.execute(db);
      return rows.map((row): TableMetadata => ({ name: row.name, schema, isView: row.is_view, columns: [] }));
    },
    getMetadata: async (options) => ({ tables: await introspector.getTables(options) }),
  };
  // A proxy, not a copy: Kysely keeps its state in private fields, so its methods run on the instance itself.
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspector;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
