import { sql, type Expression, type RawBuilder } from 'kysely';

/** A case-insensitive substring pattern for `lower(col) like ? escape '\'`, with wildcards escaped. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `lower(expr) like '%text%' escape '\'`: true when expr contains text, ignoring case, with `%`
 * and `_` in text taken literally. The escape clause is required: SQLite has no default escape.
 */
export function containsText(expr: Expression<unknown>, text: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${expr}) like ${containsPattern(text)} escape '\\'`;
}
