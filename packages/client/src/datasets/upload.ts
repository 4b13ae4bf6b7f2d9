// Streaming a local file to `POST /api/runyard/datasets/upload` (Runyard's own route): the file is
// sent as the raw request body, never read whole into memory.
import { createReadStream, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { apiErrorFor, RunyardValueError, TransportError } from '../errors.js';
import { encodeQuery, type Query, type Verify } from '../transport.js';

export interface UploaderOptions {
  platformUrl: string;
  apikey: string;
  verify?: Verify;
  timeoutMs?: number;
}

function tls(verify: Verify): https.AgentOptions {
  if (verify === false) return { rejectUnauthorized: false };
  if (verify === true) return {};
  try {
    return { ca: readFileSync(verify) };
  } catch (e) {
    throw new RunyardValueError(`The CA certificate file "${verify}" cannot be read: ${(e as Error).message}`);
  }
}

/** Sends files as request bodies (`application/octet-stream`, with their length) with the API key. */
export class StreamUploader {
  readonly #options: UploaderOptions;

  constructor(options: UploaderOptions) {
    this.#options = options;
  }

  /** POSTs the file at `localPath` to `path?query`; the reply's JSON, or an ApiError for a status >= 400. */
  async postFile<T = unknown>(path: string, query: Query, localPath: string): Promise<T> {
    let size: number;
    try {
      const s = await stat(localPath);
      if (!s.isFile()) throw new Error('not a regular file');
      size = s.size;
    } catch (e) {
      throw new RunyardValueError(`The file "${localPath}" cannot be read: ${(e as Error).message}`);
    }
    const base = new URL(this.#options.platformUrl);
    const url = new URL(base.toString());
    url.pathname = `${base.pathname.replace(/\/+$/, '')}${path}`;
    url.search = encodeQuery(query);
    const isHttps = url.protocol === 'https:';
    const agent = isHttps ? new https.Agent(tls(this.#options.verify ?? true)) : new http.Agent();
    const timeoutMs = this.#options.timeoutMs ?? 0;
    try {
      return await new Promise<T>((resolve, reject) => {
        const req = (isHttps ? https : http).request(
          url,
          {
            method: 'POST',
            agent,
            headers: {
              accept: 'application/json',
              apikey: this.#options.apikey,
              'content-type': 'application/octet-stream',
              'content-length': String(size),
            },
            ...(timeoutMs > 0 && { timeout: timeoutMs }),
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('error', (e) => reject(new TransportError(`Reading the reply of POST ${path} failed: ${e.message}`, e)));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let body: unknown = undefined;
              try {
                body = text ? JSON.parse(text) : undefined;
              } catch {
                body = text;
              }
              const status = res.statusCode ?? 0;
              if (status >= 400) {
                const b = body as { message?: unknown; code?: unknown } | undefined;
                const message = typeof b?.message === 'string' ? b.message : (http.STATUS_CODES[status] ?? 'Unknown error');
                reject(apiErrorFor(status, typeof b?.code === 'string' ? b.code : undefined, message, 'POST', path));
              } else resolve(body as T);
            });
          },
        );
        req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
        req.on('error', (e) => reject(new TransportError(`Could not reach ${base.origin}: ${e.message}`, e)));
        const file = createReadStream(localPath);
        file.on('error', (e) => {
          req.destroy();
          reject(new RunyardValueError(`The file "${localPath}" cannot be read: ${e.message}`));
        });
        file.pipe(req);
      });
    } finally {
      agent.destroy();
    }
  }
}
