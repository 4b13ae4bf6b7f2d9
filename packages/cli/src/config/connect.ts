import type { RunyardClient } from '@runyard/client';
import { UsageError } from '../errors/cli-error.js';
import { rememberSecret } from '../errors/redact.js';
import { loadSdk } from '../sdk.js';
import type { Connection } from './connection.js';

/**
 * Runs fn with an SDK client for the connection, and frees its connections afterwards. An engine
 * token (`--cromwell-token`) is sent on the workflow-engine routes instead of the API key.
 */
export async function withClient<T>(
  conn: Connection,
  fn: (client: RunyardClient) => Promise<T>,
  { engineToken }: { engineToken?: string } = {},
): Promise<T> {
  rememberSecret(conn.apikey);
  rememberSecret(engineToken);
  const { RunyardClient, RunyardValueError } = await loadSdk();
  let client: RunyardClient;
  try {
    client = new RunyardClient({ platformUrl: conn.platformUrl, apikey: conn.apikey, verify: conn.verify, engineToken });
  } catch (e) {
    // The client refuses a malformed URL or an unreadable CA file: a bad setting, so a usage error.
    if (e instanceof RunyardValueError) throw new UsageError(e.message);
    throw e;
  }
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}
