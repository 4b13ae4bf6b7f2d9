import { MAX_UPLOAD_BYTES, newObjectId, type UploadQuery } from '@runyard/contract';
import type { Kysely } from 'kysely';
import { Readable, Transform } from 'node:stream';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { defaultBucketOf } from '../scheduler/job-paths.js';
import { checkKey } from '../storage/keys.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { checkItemName, checkNameFree, datasetOfKind, findDataset, resolveDestination } from './data-items.js';
import { insertFile, uploadPrefixOf } from './folders.js';
import { blobCall, type StorageDeps } from './storage-access.js';

class TooLarge extends Error {}

/** Passes bytes through and fails once more than `max` have gone by. */
function limited(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) return done(new TooLarge());
      done(null, chunk);
    },
  });
}

/**
 * `POST /api/runyard/datasets/upload`: the request body, streamed (never held whole) to
 * `<ws>/files/<fileId>/<name>` in the workspace bucket, becomes an S3File in the project's Data
 * dataset or in a virtual folder inside it. Nothing is registered unless the whole body arrived.
 */
export async function uploadFile(db: Kysely<Database>, storage: StorageDeps, ctx: Context, q: UploadQuery, body: unknown) {
  if (body !== undefined && !(body instanceof Readable)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as the request body with Content-Type: application/octet-stream.');
  }
  const name = checkItemName(q.name);
  const project = await db
    .selectFrom('projects')
    .select('id')
    .where('id', '=', q.projectId)
    .where('workspace_id', '=', ctx.workspaceId)
    .executeTakeFirst();
  if (!project) throw new AppError('PROJECT_NOT_FOUND', `Project ${q.projectId} not found in this workspace.`);
  const data = await datasetOfKind(db, ctx.workspaceId, project.id, 'Data');
  let parent: { kind: 'Dataset' | 'Folder'; id: string } = { kind: 'Dataset', id: data.id };
  if (q.parentId && q.parentId !== data.id) {
    const asDataset = await findDataset(db, ctx.workspaceId, q.parentId);
    if (asDataset)
      throw new AppError(
        'INVALID_DESTINATION',
        `Uploads go into the Data dataset or a virtual folder in it, not into ${quoted(asDataset.name)}.`,
      );
    const dest = await resolveDestination(db, ctx.workspaceId, 'Folder', q.parentId);
    if (dest.dataset.id !== data.id)
      throw new AppError('INVALID_DESTINATION', 'Uploads go into the Data dataset of the project or a virtual folder in it.');
    parent = { kind: 'Folder', id: dest.id };
  }
  await checkNameFree(db, parent.id, name);
  const id = newObjectId();
  const bucket = defaultBucketOf(ctx.workspaceId);
  const key = await blobCall(() => checkKey(`${uploadPrefixOf(ctx.workspaceId)}${id}/${name}`));
  await storage.blobs.ensureBucket(bucket);
  let size: number;
  try {
    const source = body ?? Readable.from([]);
    const counted = limited(MAX_UPLOAD_BYTES);
    source.on('error', (e) => counted.destroy(e));
    size = (await blobCall(() => storage.blobs.put(bucket, key, source.pipe(counted), { contentType: 'application/octet-stream' }))).size;
  } catch (e) {
    await storage.blobs.delete(bucket, key).catch(() => undefined);
    if (e instanceof TooLarge) throw new AppError('UPLOAD_TOO_LARGE');
    throw e;
  }
  try {
    // Again: another upload of the same name may have finished meanwhile.
    await checkNameFree(db, parent.id, name);
    const azure = storage.blobs.kind === 'azure';
    return await insertFile(
      db,
      ctx,
      {
        name,
        itemType: azure ? 'AzureBlobFile' : 'S3File',
        parentKind: parent.kind,
        parentId: parent.id,
        bucket,
        account: azure ? storage.azureAccount : null,
        key,
        size,
        // Runyard's own object: deleted with the last item that points to it (releaseBlobs), as the item says.
        managed: true,
      },
      id,
    );
  } catch (e) {
    await storage.blobs.delete(bucket, key).catch(() => undefined);
    throw e;
  }
}
