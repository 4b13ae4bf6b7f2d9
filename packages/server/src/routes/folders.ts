import type { Handlers } from '../http/handler.js';
import {
  createStorageFile,
  createStorageFolder,
  createVirtualFolder,
  deleteFile,
  deleteFolder,
  listFolders,
  moveItem,
  renameItem,
} from '../services/folders.js';

export const folderHandlers: Handlers = {
  folderList: async (req, { db }) => listFolders(db, req.ctx, req.query),
  dataItemMove: async (req, { db }) => moveItem(db, req.ctx, req.body, req.query.force === true),
  fileRename: async (req, { db }) => renameItem(db, req.ctx, 'File', req.params.id, req.body.name, req.query.force === true),
  folderRename: async (req, { db }) => renameItem(db, req.ctx, 'Folder', req.params.id, req.body.name, req.query.force === true),
  virtualFolderCreate: async (req, { db }) => createVirtualFolder(db, req.ctx, req.body),
  s3FolderCreate: async (req, { db, storage }) => createStorageFolder(db, storage, req.ctx, req.body),
  s3FileCreate: async (req, { db, storage }) => createStorageFile(db, storage, req.ctx, req.body),
  azureFolderCreate: async (req, { db, storage }) => createStorageFolder(db, storage, req.ctx, req.body),
  azureFileCreate: async (req, { db, storage }) => createStorageFile(db, storage, req.ctx, req.body),
  fileDelete: async (req, { db, storage }) => {
    await deleteFile(db, storage, req.ctx, req.params.id, req.query.force === true);
  },
  folderDelete: async (req, { db, storage, deletionWorker }) => {
    await deleteFolder(db, storage, req.ctx, req.params.id, req.query.force === true);
    deletionWorker?.wake();
  },
};
