import type { Handlers } from '../http/handler.js';
import { bucketContents, cloudAzure, containerContents } from '../services/storage-access.js';

export const storageBrowseHandlers: Handlers = {
  bucketContents: async (req, { db, storage }) => bucketContents(db, storage, req.ctx, req.query),
  containerContents: async (req, { db, storage }) => containerContents(db, storage, req.ctx, req.query),
  cloudAzure: async (_req, { storage }) => cloudAzure(storage),
};
