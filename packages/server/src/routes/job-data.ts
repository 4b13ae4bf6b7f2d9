import type { Handlers } from '../http/handler.js';
import { deleteJobData } from '../services/job-data.js';

export const jobDataHandlers: Handlers = {
  jobDataDelete: async (req, { db, deletionWorker }) => {
    await deleteJobData(db, req.ctx, req.params.id, req.query);
    deletionWorker?.wake();
  },
};
