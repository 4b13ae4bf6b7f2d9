import { connect } from 'node:net';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/*
 * slirp4netns's API (its --api-socket, a Unix socket in the server's own folder for the network's
 * FIFOs): one JSON request per connection, the writing side shut to end it, one JSON answer.
 * Used to forward a port of a task's namespace to the host's loopback (add_hostfwd): the forward
 * lives in slirp4netns, so it lasts as long as the task, whatever happens to the server.
 */

/** The longest path a Unix socket takes (sun_path, 108 bytes with its NUL). */
const SUN_PATH_MAX = 107;

/** Where the API socket of a task that forwards `port` goes, in the server's folder for the network's FIFOs. */
export function forwardSocketOf(fifoDir: string, port: number): string {
  const socket = `${fifoDir}/fwd-${port}.sock`;
  if (Buffer.byteLength(socket) > SUN_PATH_MAX)
    throw new Error(
      `The data directory's path is too long for a Unix socket (${socket}, over ${SUN_PATH_MAX} bytes): ` +
        'a task whose port the server reaches needs a shorter RUNYARD_DATA_DIR.',
    );
  return socket;
}

/** One request on the socket; its answer, or the error that it was refused (ENOENT, ECONNREFUSED: not there yet). */
function request(socket: string, body: object): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let text = '';
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.end(JSON.stringify(body)));
    conn.on('data', (chunk: string) => (text += chunk));
    conn.on('error', reject);
    conn.on('close', () => {
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new Error(`slirp4netns answered ${JSON.stringify(text.slice(0, 200))}`));
      }
    });
  });
}

const NOT_YET = new Set(['ENOENT', 'ECONNREFUSED']);

/**
 * Forwards 127.0.0.1:port of the host to the same port of the task's namespace (its tap address,
 * where the task listens on 0.0.0.0), once slirp4netns has made its API socket; then removes the
 * socket, which nothing needs any more. Throws when the task ended first, when the socket did not
 * come within timeoutMs (the network could not be set up: the task's log says why), or when
 * slirp4netns refused (the host port taken meanwhile).
 */
export async function addHostForward(socket: string, port: number, ended: Promise<unknown>, timeoutMs = 30_000): Promise<void> {
  let over = false;
  void ended.then(() => (over = true));
  const deadline = Date.now() + timeoutMs;
  const body = { execute: 'add_hostfwd', arguments: { proto: 'tcp', host_addr: '127.0.0.1', host_port: port, guest_port: port } };
  try {
    for (;;) {
      let answer: unknown;
      try {
        answer = await request(socket, body);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (!code || !NOT_YET.has(code)) throw e;
        if (over) throw new Error(`port ${port} could not be forwarded: the task ended before its network was up`);
        if (Date.now() > deadline)
          throw new Error(
            `port ${port} could not be forwarded: the task's network was not up within ${timeoutMs / 1000} s (its log says why)`,
          );
        await sleep(20);
        continue;
      }
      const error = (answer as { error?: { desc?: string } }).error;
      if (error) throw new Error(`port ${port} could not be forwarded: slirp4netns said ${JSON.stringify(error.desc ?? error)}`);
      return;
    }
  } finally {
    await rm(socket, { force: true });
  }
}
