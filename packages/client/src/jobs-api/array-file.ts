// Array jobs (seed contract §4.6, wire reference §2.1): the array file is found by listing its
// folder in the File Explorer, and its header row is read by the server.
import type { FileExplorer } from '../datasets/file-explorer.js';
import { splitParent } from '../datasets/paths.js';
import { RunyardValueError } from '../errors.js';
import type { ArrayFileSeparator } from '../jobs/job-body.js';
import type { ApiTransport } from '../api-transport.js';
import { requireWorkspace } from './types.js';

/** One column of an array file's header row. */
export interface ArrayFileColumn {
  index: number;
  name: string;
}

/** What "retrieve array-file columns" answers: the file's id (for the job body) and its header's columns. */
export interface ArrayFileColumns {
  fileId: string;
  /** The folder listing's name of the file. */
  name: string;
  headers: ArrayFileColumn[];
}

/** Standard base64 of the text's UTF-8 bytes (btoa takes one character per byte). */
function base64(text: string): string {
  let bytes = '';
  for (const b of new TextEncoder().encode(text)) bytes += String.fromCharCode(b);
  return btoa(bytes);
}

/**
 * retrieve array-file columns: lists the folder of `arrayFile` (a File Explorer path such as
 * `Data/samples/array.csv`, in the project `datasets` was opened on), finds the file by name and
 * asks the server for its header row (`GET /api/v1/jobs/array-file/metadata`, the key in standard
 * base64). A file missing from its folder is a RunyardValueError; a reply without headers too.
 */
export async function retrieveArrayFileColumns(
  t: ApiTransport,
  datasets: FileExplorer,
  workspaceId: string,
  arrayFile: string,
  separator: ArrayFileSeparator,
): Promise<ArrayFileColumns> {
  requireWorkspace(workspaceId);
  const { parent, name } = splitParent(arrayFile);
  const listing = await datasets.listFolderContent(parent);
  const file = (listing.files ?? []).find((f) => f.name === name);
  if (!file) throw new RunyardValueError(`File "${name}" not found in the "${parent}" folder of the project "${datasets.projectName}".`);
  const bucket = file.s3BucketName ?? file.blobContainerName;
  const key = file.s3ObjectKey ?? file.blobName;
  if (!file._id || !bucket || !key) throw new RunyardValueError(`"${arrayFile}" is not a File Explorer file with a storage key.`);
  const reply = await t.request<{ headers?: ArrayFileColumn[] }>('GET', '/api/v1/jobs/array-file/metadata', {
    query: { separator, s3BucketName: bucket, s3ObjectKey: base64(key), teamId: workspaceId },
  });
  if (!Array.isArray(reply.headers)) throw new RunyardValueError('No columns found in the array file metadata.');
  return { fileId: file._id, name: file.name, headers: reply.headers };
}
