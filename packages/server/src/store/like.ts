/** A case-insensitive substring pattern for `lower(col) like ? escape '\'`, with wildcards escaped. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
