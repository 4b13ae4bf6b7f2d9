import type { JobSubmitBody } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import {
  ARRAY_FILE_SEPARATOR_NAMES,
  arrayColumnIndexes,
  MAX_ARRAY_FILE_BYTES,
  MAX_ARRAY_TASKS,
  parseArrayFile,
  separatorChar,
} from '../engines/array-file.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import type { JobResources } from '../instance-types/job-resources.js';
import { capacityOf } from '../instance-types/capacity.js';
import { idOf, findInputFile } from '../staging/input-refs.js';
import { readAll } from '../staging/inputs.js';
import { EngineError } from '../errors/engine-error.js';
import { BlobNotFoundError, type BlobStore } from '../storage/blob-store.js';
import type { Database } from '../store/schema.js';

/** A bash array job as stored: how many tasks, how many at once, and what the job holds while they run. */
export interface ArrayPlan {
  size: number;
  limit: number;
  /** The resources of `limit` tasks at once. */
  resources: JobResources;
}

async function readArrayFile(blobs: BlobStore, bucket: string, key: string, name: string): Promise<string> {
  try {
    return (await readAll(blobs, bucket, key, MAX_ARRAY_FILE_BYTES)).toString('utf8');
  } catch (e) {
    if (e instanceof BlobNotFoundError) throw new AppError('FILE_NOT_FOUND', `arrayFile ${quoted(name)} is gone from the store.`);
    if (e instanceof EngineError)
      throw new AppError('VALIDATION_FAILED', `arrayFile ${quoted(name)} is larger than ${MAX_ARRAY_FILE_BYTES / 1024 / 1024} MiB.`);
    throw e;
  }
}

/**
 * The array of a bash array job, checked at submission (400 or 404 naming what is wrong): the
 * array file is a file of the workspace with a header and at least one data row, in a separator
 * the reference knows; every arrayFileColumn parameter names a column of its header, and every row
 * has that field. How many tasks run at once: as many as the queue's concurrency and the
 * executor's capacity allow for the resources of one task (each task gets what the job asks for).
 * Null for a job without an arrayFile.
 */
export async function planArrayJob(
  db: Kysely<Database>,
  blobs: BlobStore,
  config: Config,
  workspaceId: string,
  body: JobSubmitBody,
  placement: { backend: string; concurrency: number | null },
  perTask: JobResources,
): Promise<ArrayPlan | null> {
  if (!body.arrayFile) return null;
  const id = idOf(body.arrayFile.dataItem.item);
  if (!id || body.arrayFile.dataItem.kind !== 'File')
    throw new AppError('VALIDATION_FAILED', 'arrayFile needs dataItem {"kind": "File", "item": <file id>}.');
  const separatorName = body.arrayFile.separator ?? ',';
  const sep = separatorChar(separatorName);
  if (sep === undefined) {
    throw new AppError(
      'VALIDATION_FAILED',
      `arrayFile: separator ${quoted(separatorName)} is not one of ${ARRAY_FILE_SEPARATOR_NAMES.map((s) => quoted(s)).join(', ')}.`,
    );
  }
  const file = await findInputFile(db, workspaceId, id);
  if (!file?.bucket || !file.storage_key)
    throw new AppError('FILE_NOT_FOUND', `arrayFile: file ${quoted(id)} not found in this workspace.`);
  const table = parseArrayFile(await readArrayFile(blobs, file.bucket, file.storage_key, file.name), sep);
  if (!table.header.length) throw new AppError('VALIDATION_FAILED', `arrayFile ${quoted(file.name)} is empty: it needs a header row.`);
  if (!table.rows.length)
    throw new AppError('VALIDATION_FAILED', `arrayFile ${quoted(file.name)} has a header but no data rows: no task to run.`);
  if (table.rows.length > MAX_ARRAY_TASKS)
    throw new AppError(
      'VALIDATION_FAILED',
      `arrayFile ${quoted(file.name)} has ${table.rows.length} rows; an array job runs at most ${MAX_ARRAY_TASKS}.`,
    );
  const problem = arrayColumnIndexes(body.parameters ?? [], table);
  if (typeof problem === 'string') throw new AppError('VALIDATION_FAILED', `arrayFile ${quoted(file.name)}: ${problem}`);
  const size = table.rows.length;
  const capacity = capacityOf(config, placement.backend);
  const fits = capacity ? Math.min(Math.floor(capacity.cpus / perTask.cpus), Math.floor(capacity.memoryGiB / perTask.memoryGiB)) : size;
  const limit = Math.max(1, Math.min(size, placement.concurrency ?? size, fits));
  return {
    size,
    limit,
    resources: { ...perTask, cpus: perTask.cpus * limit, memoryGiB: perTask.memoryGiB * limit },
  };
}
