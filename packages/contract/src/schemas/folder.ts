import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, ObjectId, PaginationMetadata } from './common.js';

/**
 * The File Explorer (wire-api §2.6): per project the datasets `Data`, `Analyses Results` and
 * `Cohorts`; virtual folders; folders and files that point into blob storage.
 */

export const DATASET_KINDS = ['Data', 'AnalysesResults', 'Cohorts'] as const;
export type DatasetKind = (typeof DATASET_KINDS)[number];
/** The name each dataset kind is shown with. */
export const DATASET_NAMES: Record<DatasetKind, string> = { Data: 'Data', AnalysesResults: 'Analyses Results', Cohorts: 'Cohorts' };

export const FOLDER_TYPES = ['VirtualFolder', 'S3Folder', 'AzureBlobFolder'] as const;
export type FolderType = (typeof FOLDER_TYPES)[number];
export const FILE_TYPES = ['S3File', 'AzureBlobFile'] as const;
export type FileType = (typeof FILE_TYPES)[number];

/** Deletion status of a folder or file; `ready` is the normal state. */
export const ITEM_STATUSES = ['ready', 'scheduledForDeletion', 'deleting', 'deleted', 'failedToDelete'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** Longest item name; names hold no `/`, no control character, and are not `.` or `..`. */
export const MAX_ITEM_NAME = 200;
/** Largest file `POST /api/runyard/datasets/upload` takes: 5 GiB. */
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;
/** Most items one items listing returns. */
export const MAX_ITEMS_PAGE = 10_000;

const literals = <T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v))));
const Str = (max: number) => Type.String({ maxLength: max });
const UserInfo = Type.Object({ id: Type.String(), name: Type.String(), surname: Type.String(), email: Type.String() });
const Parent = Type.Object({ kind: Type.String(), id: Type.String() });

export const Dataset = Type.Object({
  _id: ObjectId,
  name: Type.String(),
  folderType: Type.Literal(true),
  kind: literals(DATASET_KINDS),
  project: Type.Object({ id: ObjectId }),
  team: Type.Object({ id: ObjectId }),
  isManagedByLifebit: Type.Boolean(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type Dataset = Static<typeof Dataset>;

/** A folder as the items and folders routes give it; the storage keys depend on folderType. */
export const FolderItem = Type.Object({
  _id: ObjectId,
  name: Type.String(),
  kind: Type.Literal('Folder'),
  folderType: literals(FOLDER_TYPES),
  s3BucketName: Type.Optional(Type.String()),
  s3Prefix: Type.Optional(Type.String()),
  blobContainerName: Type.Optional(Type.String()),
  blobStorageAccountName: Type.Optional(Type.String()),
  blobPrefix: Type.Optional(Type.String()),
  isManagedByLifebit: Type.Boolean(),
  status: literals(ITEM_STATUSES),
  user: UserInfo,
  team: Type.Object({ id: ObjectId }),
  parent: Parent,
  sizeInBytes: Type.Optional(Type.Number()),
  deletedBy: Type.Optional(UserInfo),
  deletionDate: Type.Optional(IsoTime),
  /** Why deleting failed (status `failedToDelete`). */
  statusMessage: Type.Optional(Type.String()),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type FolderItem = Static<typeof FolderItem>;

export const FileItem = Type.Object({
  _id: ObjectId,
  name: Type.String(),
  kind: Type.Literal('File'),
  fileType: literals(FILE_TYPES),
  s3BucketName: Type.Optional(Type.String()),
  s3ObjectKey: Type.Optional(Type.String()),
  blobContainerName: Type.Optional(Type.String()),
  blobStorageAccountName: Type.Optional(Type.String()),
  blobName: Type.Optional(Type.String()),
  sizeInBytes: Type.Number(),
  isManagedByLifebit: Type.Boolean(),
  isBeingRenamed: Type.Boolean(),
  status: literals(ITEM_STATUSES),
  user: UserInfo,
  team: Type.Object({ id: ObjectId }),
  parent: Parent,
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type FileItem = Static<typeof FileItem>;

/** What lies inside an S3 or Azure folder: listed from storage, so without `_id`. */
export const StorageItem = Type.Object({
  name: Type.String(),
  kind: Type.String(),
  folderType: Type.Optional(Type.String()),
  fileType: Type.Optional(Type.String()),
  s3BucketName: Type.Optional(Type.String()),
  s3Prefix: Type.Optional(Type.String()),
  s3ObjectKey: Type.Optional(Type.String()),
  blobContainerName: Type.Optional(Type.String()),
  blobStorageAccountName: Type.Optional(Type.String()),
  blobPrefix: Type.Optional(Type.String()),
  blobName: Type.Optional(Type.String()),
  sizeInBytes: Type.Number(),
  isManagedByLifebit: Type.Boolean(),
  status: literals(ITEM_STATUSES),
  updatedAt: Type.Union([IsoTime, Type.Null()]),
});

export const DatasetListQuery = Type.Object({ teamId: Type.String({ minLength: 1 }), projectId: ObjectId });
export const DatasetListReply = Type.Object({ datasets: Type.Array(Dataset) });

export const ItemIdParams = Type.Object({ id: ObjectId });

/** `status` may repeat (`status=ready&status=deleted`); without it every status but `deleted` is listed. */
const StatusFilter = Type.Optional(Type.Array(literals(ITEM_STATUSES), { maxItems: 10 }));

export const ItemsQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  status: StatusFilter,
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ITEMS_PAGE })),
});
export type ItemsQuery = Static<typeof ItemsQuery>;

export const ItemsReply = Type.Object({
  folders: Type.Array(Type.Union([FolderItem, StorageItem])),
  files: Type.Array(Type.Union([FileItem, StorageItem])),
  paginationMetadata: PaginationMetadata,
});

export const FoldersQuery = Type.Object({ teamId: Type.String({ minLength: 1 }), id: ObjectId, status: StatusFilter });
export type FoldersQuery = Static<typeof FoldersQuery>;

/** `GET /api/runyard/storage/object`: one object of a bucket (or Azure container) of the workspace. */
export const StorageObjectQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  bucket: Type.String({ minLength: 1, maxLength: 255 }),
  key: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type StorageObjectQuery = Static<typeof StorageObjectQuery>;

export const BucketContentsQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  bucket: Type.String({ minLength: 1, maxLength: 255 }),
  path: Type.Optional(Str(1024)),
});
export type BucketContentsQuery = Static<typeof BucketContentsQuery>;

export const ContainerContentsQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  containerName: Type.String({ minLength: 1, maxLength: 255 }),
  storageAccountName: Type.String({ minLength: 1, maxLength: 255 }),
  path: Type.Optional(Str(1024)),
});
export type ContainerContentsQuery = Static<typeof ContainerContentsQuery>;

/** One entry of a storage listing; `path` is the key relative to the bucket (wire-api §2.6). */
export const StorageContent = Type.Object({
  name: Type.String(),
  path: Type.String(),
  isDir: Type.Boolean(),
  size: Type.Number(),
  lastModified: Type.Union([IsoTime, Type.Null()]),
});
export const StorageContentsReply = Type.Object({ contents: Type.Array(StorageContent) });

export const CloudAzureReply = Type.Object({ storage: Type.Optional(Type.Object({ storageAccount: Type.String() })) });

const ItemName = Str(1000);
const ParentRef = Type.Object({ kind: literals(['Dataset', 'Folder'] as const), id: ObjectId });

export const MoveBody = Type.Object({
  dataItemToMove: Type.Object({ kind: literals(['File', 'Folder'] as const), item: ObjectId }),
  toDataItemParent: Type.Object({ kind: literals(['Folder', 'Dataset'] as const), item: ObjectId }),
});
export type MoveBody = Static<typeof MoveBody>;

export const RenameBody = Type.Object({ name: ItemName });

/** mkdir, or a copy of a virtual folder with `copyContentsFrom`. */
export const VirtualFolderCreateBody = Type.Object({ name: ItemName, parent: ParentRef, copyContentsFrom: Type.Optional(ObjectId) });
export type VirtualFolderCreateBody = Static<typeof VirtualFolderCreateBody>;

export const S3FolderCreateBody = Type.Object({
  s3BucketName: Type.String({ minLength: 1, maxLength: 255 }),
  s3Prefix: Str(1024),
  name: ItemName,
  parent: ParentRef,
  isManagedByLifebit: Type.Optional(Type.Boolean()),
});
export type S3FolderCreateBody = Static<typeof S3FolderCreateBody>;

export const S3FileCreateBody = Type.Object({
  s3BucketName: Type.String({ minLength: 1, maxLength: 255 }),
  s3ObjectKey: Type.String({ minLength: 1, maxLength: 1024 }),
  name: ItemName,
  parent: ParentRef,
  isManagedByLifebit: Type.Optional(Type.Boolean()),
  sizeInBytes: Type.Optional(Type.Number({ minimum: 0 })),
});
export type S3FileCreateBody = Static<typeof S3FileCreateBody>;

export const AzureFolderCreateBody = Type.Object({
  blobContainerName: Type.String({ minLength: 1, maxLength: 255 }),
  blobPrefix: Str(1024),
  blobStorageAccountName: Type.String({ minLength: 1, maxLength: 255 }),
  name: ItemName,
  parent: ParentRef,
  isManagedByLifebit: Type.Optional(Type.Boolean()),
});
export type AzureFolderCreateBody = Static<typeof AzureFolderCreateBody>;

export const AzureFileCreateBody = Type.Object({
  blobContainerName: Type.String({ minLength: 1, maxLength: 255 }),
  blobName: Type.String({ minLength: 1, maxLength: 1024 }),
  blobStorageAccountName: Type.String({ minLength: 1, maxLength: 255 }),
  name: ItemName,
  parent: ParentRef,
  isManagedByLifebit: Type.Optional(Type.Boolean()),
  sizeInBytes: Type.Optional(Type.Number({ minimum: 0 })),
});
export type AzureFileCreateBody = Static<typeof AzureFileCreateBody>;

/** Deleting: `force=true` (a Runyard addition) allows items managed by Runyard. */
export const ItemDeleteQuery = Type.Object({ teamId: Type.String({ minLength: 1 }), force: Type.Optional(Type.Boolean()) });
/** Moving and renaming take the same flag. */
export const ItemChangeQuery = ItemDeleteQuery;

export const JOB_DATA_PROPERTIES = ['analysisResults', 'workDirectory'] as const;
export type JobDataProperty = (typeof JOB_DATA_PROPERTIES)[number];

/** `DELETE /api/v1/jobs/{id}/data?properties[]=analysisResults&teamId=W`: the brackets are part of the key. */
export const JobDataDeleteQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  'properties[]': Type.Optional(Type.Array(literals(JOB_DATA_PROPERTIES), { minItems: 1, maxItems: 2 })),
  properties: Type.Optional(Type.Array(literals(JOB_DATA_PROPERTIES), { minItems: 1, maxItems: 2 })),
});
export type JobDataDeleteQuery = Static<typeof JobDataDeleteQuery>;

export const UploadQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  projectId: ObjectId,
  parentId: Type.Optional(ObjectId),
  name: Type.String({ minLength: 1, maxLength: 1000 }),
});
export type UploadQuery = Static<typeof UploadQuery>;
