/** An INI document as Python's configparser writes it: ordered sections of ordered `key = value` pairs. */
export type IniDocument = Map<string, Map<string, string>>;

/** Parses INI text; `#` and `;` lines are comments, keys are lower-cased (as configparser does). */
export function parseIni(text: string): IniDocument {
  const doc: IniDocument = new Map();
  let section: Map<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      const name = header[1].trim();
      section = doc.get(name) ?? new Map();
      doc.set(name, section);
      continue;
    }
    const eq = line.search(/[=:]/);
    if (!section || eq <= 0) continue;
    section.set(line.slice(0, eq).trim().toLowerCase(), line.slice(eq + 1).trim());
  }
  return doc;
}

export function formatIni(doc: IniDocument): string {
  const parts: string[] = [];
  for (const [name, entries] of doc) {
    parts.push(`[${name}]\n${[...entries].map(([k, v]) => `${k} = ${v}\n`).join('')}`);
  }
  return parts.join('\n');
}
