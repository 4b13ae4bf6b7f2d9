import type { StoredParameter } from '../staging/input-refs.js';
import type { JobInputs } from '../staging/inputs.js';
import { arrayColumnIndexes, MAX_ARRAY_FILE_BYTES, parseArrayFile, separatorChar } from './array-file.js';
import { EngineError, type JobRow } from './engine.js';
import { taskParameters, type TaskParameter } from './parameters.js';

/**
 * The parameters of each task of a bash array job: the job's parameters in their order, each
 * arrayFileColumn taking that row's value of its column (a text value), the others as they are.
 * Read from the staged array file; it must still have the rows the job was admitted with.
 */
export async function arrayTaskParameters(job: JobRow, inputs: JobInputs | undefined): Promise<TaskParameter[][]> {
  if (!inputs?.arrayFileBytes) throw new EngineError('The array job has no array file to read its rows from.');
  const request = JSON.parse(job.request_json) as { arrayFile?: { separator?: string } };
  const sep = separatorChar(request.arrayFile?.separator ?? ',');
  if (sep === undefined) throw new EngineError('The array file has a separator this server does not know.');
  const text = inputs.arrayFileBytes;
  if (text.length > MAX_ARRAY_FILE_BYTES) throw new EngineError('The array file has grown larger than an array job may read.');
  const table = parseArrayFile(text.toString('utf8'), sep);
  if (table.rows.length !== job.array_size)
    throw new EngineError(`The array file has ${table.rows.length} data rows now, not the ${job.array_size} the job was submitted with.`);
  const stored = JSON.parse(job.parameters_json || '[]') as StoredParameter[];
  const columns = arrayColumnIndexes(stored, table);
  if (typeof columns === 'string') throw new EngineError(`The array file does not fit the job: ${columns}`);
  return table.rows.map((row) => {
    const rowParameters = stored.map((p, at) =>
      columns.has(at) ? { prefix: p.prefix, name: p.name, parameterKind: 'textValue', textValue: row[columns.get(at)!] } : p,
    );
    return taskParameters(JSON.stringify(rowParameters), inputs).parameters;
  });
}
