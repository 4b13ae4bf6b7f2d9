import type { Handlers } from '../http/handler.js';
import { arrayFileColumns } from '../services/array-file-columns.js';
import { abortJob } from '../services/job-abort.js';
import { jobEvents } from '../services/job-events.js';
import { submitJob } from '../services/job-submit.js';
import { getJob, getRequestPayload, listJobs, setJobsArchived } from '../services/jobs.js';
import { createQueue, listAllQueues, listQueues } from '../services/queues.js';

export const jobHandlers: Handlers = {
  jobSubmit: async (req, { db, config, scheduler, storage }) => {
    const reply = await submitJob(db, config, req.ctx, req.body, storage.blobs);
    scheduler?.wake();
    return reply;
  },
  jobList: async (req, { db, config }) => listJobs(db, config.dataDir, req.ctx, req.query),
  jobGet: async (req, { db, config }) => getJob(db, config.dataDir, req.user!, req.params.id, req.query.teamId),
  jobRequestPayload: async (req, { db }) => getRequestPayload(db, req.ctx, req.params.id),
  jobEvents: async (req, { db, config, storage, closing }) =>
    jobEvents({ db, config, blobs: storage.blobs, closing }, req.ctx, req.params.id, req.query.offset),
  jobArrayFileMetadata: async (req, { db, storage }) => arrayFileColumns(db, storage, req.ctx, req.query),
  jobAbort: async (req, { db, scheduler }) => {
    const reply = await abortJob(db, req.ctx, req.params.id, req.query.forceAbort === true);
    scheduler?.wake();
    return reply;
  },
  jobArchive: async (req, { db }) => setJobsArchived(db, req.ctx, req.body),
  queueList: async (req, { db }) => listQueues(db, req.ctx.workspaceId, false),
  systemQueueList: async (req, { db }) => listQueues(db, req.ctx.workspaceId, true),
  adminQueueCreate: async (req, { db }) => createQueue(db, req.body),
  adminQueueList: async (req, { db }) => ({ queues: await listAllQueues(db, req.query.workspaceId) }),
};
