import { useId } from 'react';

export interface ParameterRow {
  /** Stable across edits (React key). */
  key: number;
  name: string;
  value: string;
}

let nextKey = 1;
export function newRow(name = '', value = ''): ParameterRow {
  return { key: nextKey++, name, value };
}

/** The rows as the SDK takes them (`name=value`, the `-p` of the CLI); rows without a name are left out. */
export function parameterStrings(rows: ParameterRow[]): string[] {
  return rows.filter((r) => r.name.trim()).map((r) => `${r.name.trim()}=${r.value}`);
}

/** Parameters as name and value rows, added and removed; each field has its own label. */
export function ParameterRows({ rows, onChange, legend }: { rows: ParameterRow[]; onChange(rows: ParameterRow[]): void; legend: string }) {
  const id = useId();
  const set = (key: number, change: Partial<ParameterRow>) => onChange(rows.map((r) => (r.key === key ? { ...r, ...change } : r)));
  return (
    <fieldset className="jobs-parameters">
      <legend>{legend}</legend>
      {rows.length === 0 && <p className="muted">No parameters.</p>}
      {rows.map((r, i) => (
        <div className="jobs-parameter-row" key={r.key}>
          <label htmlFor={`${id}-n${r.key}`} className="visually-hidden">
            Parameter {i + 1} name
          </label>
          <input
            id={`${id}-n${r.key}`}
            placeholder="name"
            value={r.name}
            maxLength={200}
            onChange={(e) => set(r.key, { name: e.target.value })}
          />
          <span aria-hidden="true">=</span>
          <label htmlFor={`${id}-v${r.key}`} className="visually-hidden">
            Parameter {i + 1} value
          </label>
          <input id={`${id}-v${r.key}`} placeholder="value" value={r.value} onChange={(e) => set(r.key, { value: e.target.value })} />
          <button type="button" className="secondary" onClick={() => onChange(rows.filter((x) => x.key !== r.key))}>
            Remove<span className="visually-hidden"> parameter {i + 1}</span>
          </button>
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => onChange([...rows, newRow()])}>
        Add parameter
      </button>
    </fieldset>
  );
}
