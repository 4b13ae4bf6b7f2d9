import type { RunyardClient } from '@runyard/client';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';

/** How long `job run` waits for a stopped engine server to start (the public client's 300 s). */
export const ENGINE_START_WAIT_SECONDS = 300;

/**
 * The id of the workspace's WDL engine server (a WDL job's cromwellCloudResources), started first
 * when it is stopped and awaited while it starts, as the public client's `job run` does.
 */
export async function readyEngineServer(client: RunyardClient, workspaceId: string, ctx: CliContext): Promise<string> {
  let server = await client.getCromwellStatus(workspaceId);
  if (server.status === 'Stopped') {
    ctx.stderr.write("Starting the workspace's WDL engine server.\n");
    server = await client.cromwellSwitch(workspaceId, 'restart');
  }
  if (server.status !== 'Running') {
    ctx.stderr.write(`The WDL engine server is ${server.status}: waiting up to ${ENGINE_START_WAIT_SECONDS} s for it to run.\n`);
    server = await client.waitForCromwell(workspaceId, { waitTime: ENGINE_START_WAIT_SECONDS, interval: 1 });
  }
  if (server.status !== 'Running')
    throw new CliError(`The workspace's WDL engine server is ${server.status}, not running: the WDL job was not launched.`);
  return server._id;
}
