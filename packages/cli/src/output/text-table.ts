export interface TextTable {
  headers: string[];
  rows: string[][];
}

/** One line per cell value: tabs and line breaks would break the layout. */
const flat = (s: string) => s.replace(/[\t\r\n]+/g, ' ');

/** For a person: a header and columns padded to line up; the header in bold when colour is on. */
export function renderAligned(table: TextTable, { colour }: { colour: boolean }): string {
  const rows = table.rows.map((r) => r.map(flat));
  const widths = table.headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const header = line(table.headers);
  return [colour ? `\x1b[1m${header}\x1b[0m` : header, ...rows.map(line)].join('\n') + '\n';
}

/** For a pipe: tab-separated values, one record per line, no header (easy to cut, sort and grep). */
export function renderTabSeparated(table: TextTable): string {
  return table.rows.map((r) => r.map(flat).join('\t') + '\n').join('');
}
