import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { BUILT_IN_INSTANCE_TYPES, type InstanceType } from './catalogue.js';

const Entry = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' }),
    provider: Type.Optional(Type.Union(['aws', 'azure', 'other'].map((p) => Type.Literal(p)))),
    vcpus: Type.Number({ exclusiveMinimum: 0, maximum: 100_000 }),
    memoryGiB: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 }),
    pricePerHourUsd: Type.Number({ minimum: 0, maximum: 100_000 }),
    priceDate: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
  },
  { additionalProperties: false },
);
type Entry = Static<typeof Entry>;

const FileShape = Type.Union([
  Type.Array(Entry),
  Type.Object({ replaceBuiltIn: Type.Optional(Type.Boolean()), instanceTypes: Type.Array(Entry) }, { additionalProperties: false }),
]);

/** A catalogue: instance types by name, in the order they are listed. */
export type InstanceTypeCatalogue = ReadonlyMap<string, InstanceType>;

/**
 * Reads an operator file: a JSON array of entries, which extends the built-in catalogue (an entry
 * with a built-in name replaces it), or `{"replaceBuiltIn": true, "instanceTypes": [...]}`, whose
 * entries are the whole catalogue. Throws an Error naming the first problem.
 */
export function readInstanceTypesFile(file: string): InstanceTypeCatalogue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`RUNYARD_INSTANCE_TYPES ${file}: ${(e as Error).message}`);
  }
  if (!Value.Check(FileShape, parsed)) {
    const entries = Array.isArray(parsed) ? parsed : (parsed as { instanceTypes?: unknown })?.instanceTypes;
    const index = Array.isArray(entries) ? entries.findIndex((e) => !Value.Check(Entry, e)) : -1;
    if (index >= 0) {
      const error = Value.Errors(Entry, (entries as unknown[])[index]).First();
      throw new Error(`RUNYARD_INSTANCE_TYPES ${file}: entry ${index}${error ? ` ${error.path || ''}: ${error.message}` : ''}`);
    }
    throw new Error(
      `RUNYARD_INSTANCE_TYPES ${file}: must be a JSON array of instance types or {"replaceBuiltIn": true|false, "instanceTypes": [...]}`,
    );
  }
  const [entries, replace] = Array.isArray(parsed) ? [parsed, false] : [parsed.instanceTypes, parsed.replaceBuiltIn === true];
  const names = new Set<string>();
  for (const e of entries) {
    if (names.has(e.name)) throw new Error(`RUNYARD_INSTANCE_TYPES ${file}: instance type "${e.name}" is listed twice`);
    names.add(e.name);
  }
  const catalogue = new Map<string, InstanceType>(replace ? [] : BUILT_IN_INSTANCE_TYPES.map((t) => [t.name, t]));
  for (const e of entries as Entry[]) catalogue.set(e.name, { ...e, provider: (e.provider ?? 'other') as InstanceType['provider'] });
  return catalogue;
}

/** The setting the catalogue comes from (a Config has it; this folder sits below config.ts, so it names only what it reads). */
export interface CatalogueSettings {
  readonly instanceTypesFile: string;
}

const loaded = new WeakMap<CatalogueSettings, InstanceTypeCatalogue>();

/** The catalogue of a configuration: the built-in one, with the operator file applied (checked at start by loadConfig). */
export function instanceTypes(config: CatalogueSettings): InstanceTypeCatalogue {
  let catalogue = loaded.get(config);
  if (!catalogue) {
    catalogue = config.instanceTypesFile
      ? readInstanceTypesFile(config.instanceTypesFile)
      : new Map(BUILT_IN_INSTANCE_TYPES.map((t) => [t.name, t]));
    loaded.set(config, catalogue);
  }
  return catalogue;
}
