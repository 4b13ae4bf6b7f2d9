/** A parameter entry of a job document or request payload. */
type Parameter = Record<string, unknown>;

/** The value a parameter entry stands for, as it would be written after `name=`. */
export function parameterValue(p: Parameter): string {
  switch (p.parameterKind) {
    case 'textValue':
      return String(p.textValue ?? '');
    case 'globPattern':
      return String(p.globPattern ?? '');
    case 'dataItem': {
      const item = p.dataItem as { item?: unknown } | undefined;
      return String(item?.item ?? '');
    }
    case 'arrayFileColumn':
      return String(p.columnName ?? '');
    default: {
      const rest = { ...p };
      for (const key of ['prefix', 'name', 'parameterKind']) delete rest[key];
      return JSON.stringify(rest);
    }
  }
}

/** `--name=value`, as -p takes it. */
export function parameterText(p: Parameter): string {
  return `${typeof p.prefix === 'string' ? p.prefix : '--'}${String(p.name)}=${parameterValue(p)}`;
}

/** A value as a job-config literal: quoted unless it is a plain number or boolean. */
function configLiteral(value: string): string {
  if (/^(true|false|-?\d+(\.\d+)?)$/.test(value)) return value;
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('"')) return `"${value}"`;
  return value;
}

/** The parameters as a job-config file (`runyard job run --job-config FILE` reads it back). */
export function jobConfigText(parameters: Parameter[]): string {
  const lines = parameters.map((p) => `  ${String(p.name)} = ${configLiteral(parameterValue(p))}`);
  return ['params {', ...lines, '}', ''].join('\n');
}
