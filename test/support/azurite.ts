import { createRequire } from 'node:module';
import path from 'node:path';
import { startEmulator } from './emulator-process.js';

/**
 * Azurite's Blob service (from npm) for tests, in a child process (see emulator-process.ts) on 127.0.0.1 with a
 * free port (the port it reports) and a temporary directory, with telemetry off. It serves Azurite's well-known
 * development account. stop() ends it and removes the directory; it is bounded in time and safe to call twice.
 */
export interface AzuriteServer {
  /** Blob service URL of the development account: http://127.0.0.1:<port>/devstoreaccount1 */
  endpoint: string;
  accountName: string;
  accountKey: string;
  connectionString: string;
  directory: string;
  stop(): Promise<void>;
}

export const AZURITE_ACCOUNT = 'devstoreaccount1';
/** Azurite's published development key (not a secret). */
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

function blobMain(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('azurite/package.json')), 'dist', 'src', 'blob', 'main.js');
}

// Azurite reads its options from process.argv as a script would get them: [node, script, ...options].
const CHILD = `
const location = process.argv[1];
const main = process.argv[2];
process.argv = [process.execPath, main, '--blobHost', '127.0.0.1', '--blobPort', '0', '--location', location,
  '--silent', '--skipApiVersionCheck', '--disableTelemetry'];
require(main);
`;

export async function startAzurite(): Promise<AzuriteServer> {
  const child = await startEmulator({
    name: 'azurite',
    code: CHILD,
    args: [blobMain()],
    ready: /successfully listens on https?:\/\/127\.0\.0\.1:(\d+)/,
  });
  const endpoint = `http://127.0.0.1:${child.port}/${AZURITE_ACCOUNT}`;
  return {
    endpoint,
    accountName: AZURITE_ACCOUNT,
    accountKey: AZURITE_KEY,
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=${endpoint};`,
    directory: child.directory,
    stop: child.stop,
  };
}
