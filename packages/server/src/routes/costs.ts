import type { Handlers } from '../http/handler.js';
import { listInstanceTypes } from '../services/instance-types.js';
import { getJobCosts } from '../services/job-costs.js';

export const costHandlers: Handlers = {
  jobCosts: async (req, { db, config }) => getJobCosts(db, config, req.ctx, req.params.id, req.query),
  instanceTypeList: async (_req, { config }) => listInstanceTypes(config),
};
