import type { Handlers } from '../http/handler.js';
import { bucketContents, cloudAzure, containerContents } from '../services/storage-access.js';
import { storageObject } from '../services/storage-object.js';

export const storageBrowseHandlers: Handlers = {
  bucketContents: async (req, { db, storage }) => bucketContents(db, storage, req.ctx, req.query),
  containerContents: async (req, { db, storage }) => containerContents(db, storage, req.ctx, req.query),
  cloudAzure: async (_req, { storage }) => cloudAzure(storage),
  storageObject: async (req, { db, storage }) => {
    const range = req.headers.range;
    return storageObject(db, storage, req.ctx, req.query, Array.isArray(range) ? range[0] : range);
  },
};
