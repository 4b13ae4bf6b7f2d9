import type { Handlers } from '../http/handler.js';
import { getEngineServer, rotateEngineToken, setEngineDriver, showEngineToken, switchEngineServer } from '../services/engine-servers.js';

/** The workspace's WDL engine server (CloudOS's Cromwell routes), its engine token, and its driver (admin). */
export const cromwellHandlers: Handlers = {
  cromwellStatus: async (req, { db, config }) => getEngineServer(db, config, req.ctx.workspaceId),
  cromwellSwitch: async (req, { db, config }) => switchEngineServer(db, config, req.ctx.workspaceId, req.params.action),
  engineTokenShow: async (req, { db, config }) => showEngineToken(db, config, req.ctx.workspaceId),
  engineTokenRotate: async (req, { db, config }) => rotateEngineToken(db, config, req.ctx.workspaceId),
  adminEngineSet: async (req, { db, config }) => setEngineDriver(db, config, req.body),
};
