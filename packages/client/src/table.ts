/** A list ready for display or CSV: column names and one flat record per row. */
export interface Table {
  columns: string[];
  rows: Record<string, unknown>[];
}

/** Flattens nested objects into dotted keys (`user.name`), like pandas' json_normalize; arrays stay whole. */
export function flatten(value: Record<string, unknown>, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [key, v] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) flatten(v as Record<string, unknown>, name, out);
    else out[name] = v;
  }
  return out;
}

/**
 * Selected columns in a fixed order, or with `allFields` every flattened key in order of first
 * appearance. A selected column missing from an item is an empty cell.
 */
export function toTable(items: object[], columns: readonly string[], allFields = false): Table {
  const flat = items.map((i) => flatten(i as Record<string, unknown>));
  if (!allFields) return { columns: [...columns], rows: flat.map((r) => Object.fromEntries(columns.map((c) => [c, r[c]]))) };
  // A Set keeps insertion order: the columns in order of first appearance.
  const all = new Set<string>();
  for (const r of flat) for (const k of Object.keys(r)) all.add(k);
  return { columns: [...all], rows: flat };
}

function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** RFC 4180 CSV with a header row. */
export function tableToCsv(table: Table): string {
  const esc = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = [table.columns.map(esc).join(',')];
  for (const row of table.rows) lines.push(table.columns.map((c) => esc(cellText(row[c]))).join(','));
  return lines.join('\n') + '\n';
}

export { cellText };
