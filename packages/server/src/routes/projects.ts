import type { Handlers } from '../http/handler.js';
import { createProject, listProjects } from '../services/projects.js';

export const projectHandlers: Handlers = {
  projectList: async (req, { db }) => listProjects(db, req.ctx, req.query),
  projectCreate: async (req, { db }) => createProject(db, req.ctx, req.body.name),
};
