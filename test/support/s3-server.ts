import { startEmulator } from './emulator-process.js';

/**
 * A local S3-compatible server for tests: s3rver (from npm) in a child process (see emulator-process.ts) on
 * 127.0.0.1 with a free port and a temporary directory. Its fixed credentials are S3RVER / S3RVER; it wants
 * path-style requests. stop() ends it and removes the directory; it is bounded in time and safe to call twice.
 *
 * Quirks of s3rver 3.7.1 that the helper works around, none of which touch the code under test:
 * - it makes ListObjectsV2 continuation tokens with DES, which Node 20's OpenSSL 3 has only in its legacy
 *   provider: the child runs with --openssl-legacy-provider (or every truncated listing is a 500);
 * - its file store deletes the objects of one DeleteObjects request concurrently, each pruning the directories it
 *   leaves empty, and these prunings race (ENOENT, a 500): the child runs its object deletions one at a time;
 * - it checks only the access key id of SigV4 requests, not the signature.
 */
export interface S3TestServer {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  directory: string;
  stop(): Promise<void>;
}

const CHILD = `
const S3rver = require('s3rver');
const server = new S3rver({ address: '127.0.0.1', port: 0, directory: process.argv[1], silent: true });
const store = server.store;
const deleteObject = store.deleteObject.bind(store);
let queue = Promise.resolve();
store.deleteObject = (...args) => {
  const run = queue.then(() => deleteObject(...args));
  queue = run.catch(() => undefined);
  return run;
};
server.run().then((address) => console.log('s3rver listening on port ' + address.port), (e) => {
  console.error(e);
  process.exit(1);
});
`;

export async function startS3Server(): Promise<S3TestServer> {
  const child = await startEmulator({
    name: 's3rver',
    code: CHILD,
    nodeOptions: ['--openssl-legacy-provider'],
    ready: /s3rver listening on port (\d+)/,
    startMs: 20_000,
  });
  return {
    endpoint: `http://127.0.0.1:${child.port}`,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    directory: child.directory,
    stop: child.stop,
  };
}

/** The server settings that put its storage on this emulator. */
export function s3BackendEnv(s3: S3TestServer): Record<string, string> {
  return {
    RUNYARD_STORAGE_BACKEND: 's3',
    RUNYARD_S3_ENDPOINT: s3.endpoint,
    RUNYARD_S3_REGION: s3.region,
    RUNYARD_S3_ACCESS_KEY_ID: s3.accessKeyId,
    RUNYARD_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    RUNYARD_S3_FORCE_PATH_STYLE: 'true',
  };
}
