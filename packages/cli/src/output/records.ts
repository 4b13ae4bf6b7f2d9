import type { Table } from '@runyard/client';
import { loadSdk } from '../sdk.js';

/** A ListView.records that keeps these keys, in this order (or every field with allFields). */
export function recordsOf<T extends object>(keys: readonly (keyof T & string)[]): (items: T[], allFields: boolean) => Promise<Table> {
  return async (items, allFields) => (await loadSdk()).toTable(items, keys, allFields);
}
