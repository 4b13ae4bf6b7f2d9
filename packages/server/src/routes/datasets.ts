import { MAX_UPLOAD_BYTES, ROUTES } from '@runyard/contract';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';
import type { Handlers } from '../http/handler.js';
import { listDatasets, listItems } from '../services/folders.js';
import { uploadFile } from '../services/upload.js';

export const datasetHandlers: Handlers = {
  datasetList: async (req, { db }) => listDatasets(db, req.ctx, req.query.projectId),
  datasetItems: async (req, { db, storage }) => listItems(db, storage, req.ctx, req.params.id, req.query, false),
  virtualFolderItems: async (req, { db, storage }) => listItems(db, storage, req.ctx, req.params.id, req.query, true),
  datasetUpload: async (req, { db, storage }) => uploadFile(db, storage, req.ctx, req.query, req.body),
};

/**
 * `application/octet-stream` bodies reach the upload route as the raw stream, unread and
 * without the 1 MiB JSON limit (the upload counts its bytes against MAX_UPLOAD_BYTES); any other
 * route refuses them.
 */
export function registerUploadBodyParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/octet-stream', (request, payload, done) => {
    if (request.routeOptions.url !== ROUTES.datasetUpload.path) return done(new AppError('UNSUPPORTED_MEDIA_TYPE'), undefined);
    const length = Number(request.headers['content-length']);
    if (Number.isFinite(length) && length > MAX_UPLOAD_BYTES) return done(new AppError('UPLOAD_TOO_LARGE'), undefined);
    done(null, payload);
  });
}
