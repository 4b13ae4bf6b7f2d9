import type { Handlers } from '../http/handler.js';
import { getBranches, getPublicRepo, getWorkflowConfig, importWorkflow } from '../services/workflow-import.js';
import { createDockerWorkflow, getWorkflow, listWorkflows, setWorkflowArchived } from '../services/workflows.js';

export const workflowHandlers: Handlers = {
  workflowList: async (req, { db }) => listWorkflows(db, req.ctx, req.query),
  workflowGet: async (req, { db }) => getWorkflow(db, req.ctx.workspaceId, req.params.id),
  workflowImport: async (req, { db, config }) => importWorkflow(db, config, req.ctx, req.body),
  workflowImportLegacy: async (req, { db, config }) => importWorkflow(db, config, req.ctx, req.body),
  workflowArchive: async (req, { db }) => setWorkflowArchived(db, req.ctx, req.params.id, true),
  workflowUnarchive: async (req, { db }) => setWorkflowArchived(db, req.ctx, req.params.id, false),
  gitPublicRepo: async (req, { config }) => getPublicRepo(config, req.params.platform, req.query),
  gitWorkflowConfig: async (req, { config }) =>
    getWorkflowConfig(config, req.ctx, req.params.platform, req.params.repoName, req.params.repoOwner, req.query.host),
  gitBranches: async (req, { db, config }) => getBranches(db, config, req.ctx, req.query),
  adminDockerWorkflowCreate: async (req, { db }) => createDockerWorkflow(db, req.user!, req.body),
};
