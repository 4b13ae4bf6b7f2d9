import type { Kysely, Selectable } from 'kysely';
import type { Database, FileTable, FolderTable, JobTable } from '../store/schema.js';

type Parameter = Record<string, unknown> & { parameterKind?: string; dataItem?: { kind?: string; item?: unknown }; folder?: unknown };

/** Where a stored file is, in the shape the wire shows inside a job's parameters (wire-api §2.1). */
function fileLocation(f: Selectable<FileTable>): Record<string, unknown> {
  const base = { _id: f.id, name: f.name };
  return f.item_type === 'AzureBlobFile'
    ? { ...base, blobStorageAccountName: f.account, blobContainerName: f.bucket, blobName: f.storage_key }
    : { ...base, s3BucketName: f.bucket, s3ObjectKey: f.storage_key };
}

function folderLocation(f: Selectable<FolderTable>): Record<string, unknown> {
  const base = { _id: f.id, name: f.name };
  if (f.item_type === 'AzureBlobFolder')
    return { ...base, blobStorageAccountName: f.account, blobContainerName: f.bucket, blobPrefix: f.storage_key };
  if (f.item_type === 'S3Folder') return { ...base, s3BucketName: f.bucket, s3Prefix: f.storage_key };
  return base;
}

/**
 * A job's parameters as its document shows them: the file of a `dataItem` and the folder of a
 * `globPattern`, given as ids when submitted, expanded into where they are stored. Only items
 * of the job's own workspace are expanded; anything else stays as submitted.
 */
export async function parameterExpander(
  db: Kysely<Database>,
  jobs: Selectable<JobTable>[],
): Promise<(job: Selectable<JobTable>) => unknown[]> {
  const parsed = new Map(jobs.map((j) => [j.id, JSON.parse(j.parameters_json) as Parameter[]]));
  const fileIds = new Set<string>();
  const folderIds = new Set<string>();
  for (const params of parsed.values()) {
    for (const p of params) {
      if (p.parameterKind === 'dataItem' && typeof p.dataItem?.item === 'string') fileIds.add(p.dataItem.item);
      if (p.parameterKind === 'globPattern' && typeof p.folder === 'string') folderIds.add(p.folder);
    }
  }
  const [files, folders] = await Promise.all([
    fileIds.size
      ? db
          .selectFrom('files')
          .selectAll()
          .where('id', 'in', [...fileIds])
          .execute()
      : Promise.resolve([]),
    folderIds.size
      ? db
          .selectFrom('folders')
          .selectAll()
          .where('id', 'in', [...folderIds])
          .execute()
      : Promise.resolve([]),
  ]);
  const fileById = new Map(files.map((f) => [f.id, f]));
  const folderById = new Map(folders.map((f) => [f.id, f]));
  return (job) =>
    parsed.get(job.id)!.map((p) => {
      if (p.parameterKind === 'dataItem' && typeof p.dataItem?.item === 'string') {
        const file = fileById.get(p.dataItem.item);
        if (file?.workspace_id === job.workspace_id) return { ...p, dataItem: { ...p.dataItem, item: fileLocation(file) } };
      }
      if (p.parameterKind === 'globPattern' && typeof p.folder === 'string') {
        const folder = folderById.get(p.folder);
        if (folder?.workspace_id === job.workspace_id) return { ...p, folder: folderLocation(folder) };
      }
      return p;
    });
}
