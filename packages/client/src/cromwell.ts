import type { EngineAction, EngineDriver, EngineServer, EngineToken } from '@runyard/contract';
import { RunyardValueError } from './errors.js';
import type { RequestOptions, ApiTransport } from './api-transport.js';
import { ENGINE_ACTIONS } from '@runyard/contract';

/**
 * The workspace's workflow-engine server (CloudOS's Cromwell routes, seed §4.4). They are sent
 * with the Cromwell header of wire-api §1.2: `Accept: application/json` and, when an engine token
 * is given, `Authorization: Bearer <token>` and no apikey; otherwise the apikey.
 */
function engineAuth(engineToken: string | null): Pick<RequestOptions, 'bearer'> {
  return engineToken ? { bearer: engineToken } : {};
}

/** get_cromwell_status: `{_id, status, driver, ...}`; `_id` is what a WDL job sends as cromwellCloudResources. */
export function getCromwellStatus(t: ApiTransport, workspaceId: string, engineToken: string | null): Promise<EngineServer> {
  return t.request('GET', '/api/v1/cromwell', { query: { teamId: workspaceId }, ...engineAuth(engineToken) });
}

/** cromwell_switch: `restart` starts the engine server (CLI `cromwell start`), `stop` stops it; no body. */
export function cromwellSwitch(
  t: ApiTransport,
  workspaceId: string,
  action: EngineAction,
  engineToken: string | null,
): Promise<EngineServer> {
  if (!(ENGINE_ACTIONS as readonly string[]).includes(action)) {
    return Promise.reject(new RunyardValueError(`The action must be restart or stop, not '${String(action)}'.`));
  }
  return t.request('PUT', `/api/v1/cromwell/${action}`, { query: { teamId: workspaceId }, ...engineAuth(engineToken) });
}

export interface WaitForEngineOptions {
  /** Seconds to wait at most (default 300, as the public client). */
  waitTime?: number;
  /** Seconds between status requests (default 2). */
  interval?: number;
  /** Called with each status read, the first one included. */
  onStatus?: (server: EngineServer) => void;
}

/**
 * Polls the engine server until it is Running, or `waitTime` seconds have passed: the last status
 * read (Running, or whatever it was then). A server that went back to Stopped (its start failed)
 * ends the wait at once.
 */
export async function waitForCromwell(
  t: ApiTransport,
  workspaceId: string,
  engineToken: string | null,
  { waitTime = 300, interval = 2, onStatus }: WaitForEngineOptions = {},
): Promise<EngineServer> {
  const deadline = Date.now() + waitTime * 1000;
  for (;;) {
    const server = await getCromwellStatus(t, workspaceId, engineToken);
    onStatus?.(server);
    if (server.status === 'Running' || server.status === 'Stopped' || Date.now() + interval * 1000 > deadline) return server;
    await new Promise((resolve) => setTimeout(resolve, interval * 1000));
  }
}

/** The workspace's engine token (a workspace admin or owner). */
export function showEngineToken(t: ApiTransport, workspaceId: string): Promise<EngineToken> {
  return t.request('GET', '/api/runyard/engine-token', { query: { teamId: workspaceId } });
}

/** A new engine token for the workspace; the old one stops working at once (a workspace admin or owner). */
export function rotateEngineToken(t: ApiTransport, workspaceId: string): Promise<EngineToken> {
  return t.request('POST', '/api/runyard/engine-token/rotate', { query: { teamId: workspaceId } });
}

/** The WDL driver (and, for cromwell, the server's URL) of a workspace's engine server, which must be stopped (a platform administrator). */
export function setWorkspaceEngine(t: ApiTransport, workspaceId: string, driver: EngineDriver, url?: string): Promise<EngineServer> {
  return t.request('PUT', '/api/runyard/admin/engine', { body: { workspaceId, driver, ...(url !== undefined && { url }) } });
}
