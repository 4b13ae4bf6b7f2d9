import type { Selectable } from 'kysely';
import type { DatasetTable, FileTable, FolderTable, JobTable } from './schema.js';

/** Rows as the database returns them, for the modules of every layer that read them. */
export type JobRow = Selectable<JobTable>;
export type DatasetRow = Selectable<DatasetTable>;
export type FolderRow = Selectable<FolderTable>;
export type FileRow = Selectable<FileTable>;
