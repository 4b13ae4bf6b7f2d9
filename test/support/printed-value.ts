/** The value a server printed after `label:` at its start (`API key`, `Workspace id` on a first start), or undefined. */
export function printedValue(lines: string[], label: string): string | undefined {
  return lines
    .find((l) => l.includes(`${label}:`))
    ?.split(':')[1]
    ?.trim();
}
