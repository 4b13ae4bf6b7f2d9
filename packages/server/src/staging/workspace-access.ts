import type { Kysely } from 'kysely';
import { defaultBucketOf } from '../storage/storage-deps.js';
import type { Database } from '../store/schema.js';

/**
 * Which storage a workspace may reach (T9), as one rule for the storage routes and for the
 * inputs a job names: its own area `<ws>/` of its default bucket, and what its S3 or Azure
 * folders and files point to.
 */

export const isInside = (key: string, folder: string) => key === folder || key.startsWith(`${folder}/`);

/**
 * True when the workspace may read `key` (a folder path, or an object key when `object`) in `bucket`:
 * inside `<ws>/` of its default bucket (or the root of that bucket, listed filtered), or inside
 * one of its storage folders, or one of its files.
 */
export async function canAccess(db: Kysely<Database>, workspaceId: string, bucket: string, key: string, object = false): Promise<boolean> {
  if (bucket === defaultBucketOf(workspaceId) && (key === '' || isInside(key, workspaceId))) return true;
  if (key === '') return false;
  const folders = await db
    .selectFrom('folders')
    .select('storage_key')
    .where('workspace_id', '=', workspaceId)
    .where('bucket', '=', bucket)
    .where('item_type', 'in', ['S3Folder', 'AzureBlobFolder'])
    .where('status', '!=', 'deleted')
    .execute();
  if (folders.some((f) => f.storage_key && isInside(key, f.storage_key))) return true;
  if (!object) return false;
  const file = await db
    .selectFrom('files')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('bucket', '=', bucket)
    .where('storage_key', '=', key)
    .executeTakeFirst();
  return Boolean(file);
}
