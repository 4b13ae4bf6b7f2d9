import type { Table } from '@runyard/client';

/** A column of the human-readable table. */
export interface Column<T> {
  header: string;
  value(item: T): string | number | boolean | null | undefined;
}

/** How one kind of list is shown: a few readable columns for the table, flat records for CSV. */
export interface ListView<T> {
  /** Plural, lower case: "projects". */
  noun: string;
  columns: Column<T>[];
  /** The CSV table (and the table format's columns with --all-fields). */
  records(items: T[], allFields: boolean): Table | Promise<Table>;
}
