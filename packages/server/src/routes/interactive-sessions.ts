import type { Handlers } from '../http/handler.js';
import { sessionUiLaunchPath } from '../http/session-proxy.js';
import { sessionForUi } from '../services/interactive-session-ui.js';
import { abortSession } from '../services/interactive-session-abort.js';
import { createSession } from '../services/interactive-session-create.js';
import { listMounts, mountItems } from '../services/interactive-session-mounts.js';
import { resumeSession } from '../services/interactive-session-resume.js';
import { getSession, listSessions } from '../services/interactive-sessions.js';

/** How long a launch link works: it is opened at once, and taken once for a cookie that lasts longer. */
const LAUNCH_TTL_SECONDS = 60;

/** Interactive sessions (wire-api §2.11); a change wakes the scheduler, whose runner starts and stops them. */
export const sessionHandlers: Handlers = {
  sessionCreate: async (req, { db, config, scheduler }) => {
    const session = await createSession(db, config, req.ctx, req.body);
    scheduler?.wake();
    return session;
  },
  sessionList: async (req, { db }) => listSessions(db, req.ctx, req.query),
  sessionGet: async (req, { db }) => getSession(db, req.ctx, req.params.id),
  sessionResume: async (req, { db, config, scheduler }) => {
    const session = await resumeSession(db, config, req.ctx, req.params.id, req.body);
    scheduler?.wake();
    return session;
  },
  sessionAbort: async (req, { db, scheduler }) => {
    await abortSession(db, req.ctx, req.params.id, req.body);
    scheduler?.wake();
  },
  // Recorded here, applied by the session's runner (woken) once the session runs.
  sessionMount: async (req, { db, scheduler }) => {
    await mountItems(db, req.ctx, req.params.id, req.body.dataItems, 'v2');
    scheduler?.wake();
  },
  sessionMountV1: async (req, { db, scheduler }) => {
    await mountItems(db, req.ctx, req.params.id, [req.body.dataItem], 'v1');
    scheduler?.wake();
  },
  sessionMounts: async (req, { db, config }) => listMounts(db, config, req.ctx, req.params.id, req.query),
  // An absolute URL on the sessions' own origin (http/session-origins.ts); a path when they share the platform's.
  sessionUiLink: async (req, { db, sessionUi, sessionOrigins }) => {
    const { id } = await sessionForUi(db, req.ctx, req.params.id);
    const token = sessionUi.issue('launch', id, req.ctx.user.id, LAUNCH_TTL_SECONDS, req.ctx.user.apiKeyId);
    const url = `${sessionOrigins.sessionsUrl() ?? ''}${sessionUiLaunchPath(id, token)}`;
    return { _id: id, url, expiresAt: new Date(Date.now() + LAUNCH_TTL_SECONDS * 1000).toISOString() };
  },
};
