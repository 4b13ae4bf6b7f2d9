import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import {
  encodeQuery,
  errorOfReply,
  joinPath,
  parseReply,
  type ApiTransport,
  type Query,
  type RawResponse,
  type RequestOptions,
  type StreamOptions,
} from './api-transport.js';
import { RunyardValueError, TransportError } from './errors.js';

export { encodeQuery, type Query, type QueryValue, type RawResponse, type RequestOptions } from './api-transport.js';

/** `true` verifies TLS with the system CAs, `false` does not verify, a string is a CA certificate file. */
export type Verify = boolean | string;

export interface TransportOptions {
  platformUrl: string;
  apikey: string;
  verify?: Verify;
  /** Milliseconds before a request is abandoned; 0 waits forever. */
  timeoutMs?: number;
}

/**
 * HTTP with the API key in the `apikey` header. The base URL may carry a path prefix and a
 * trailing slash; any status >= 400 becomes a typed ApiError with the server's message.
 */
export class Transport implements ApiTransport {
  readonly baseUrl: URL;
  /** The base URL's path prefix without a trailing slash ('' when none). */
  readonly basePath: string;
  readonly #apikey: string;
  readonly #agent: http.Agent;
  readonly #timeoutMs: number;

  constructor(options: TransportOptions) {
    let base: URL;
    try {
      base = new URL(options.platformUrl);
    } catch {
      throw new RunyardValueError(`The platform URL "${options.platformUrl}" is not a valid URL.`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new RunyardValueError(`The platform URL must start with http:// or https://, not "${base.protocol}".`);
    }
    if (!options.apikey) throw new RunyardValueError('An API key is required.');
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.baseUrl = base;
    this.#apikey = options.apikey;
    this.#timeoutMs = options.timeoutMs ?? 0;
    this.#agent =
      base.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, ...tlsOptions(options.verify ?? true) })
        : new http.Agent({ keepAlive: true });
  }

  /** Sends a request and returns the parsed JSON body; throws ApiError for status >= 400. */
  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, path, options);
    if (res.status >= 400) throw errorOfReply(res.status, res.body, method, path);
    return res.body as T;
  }

  /** Sends a request and returns status, headers and parsed body whatever the status. */
  raw(method: string, path: string, { query, body, headers, bearer }: RequestOptions = {}): Promise<RawResponse> {
    const url = this.#url(path, query);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(
        url,
        {
          method,
          agent: this.#agent,
          headers: {
            accept: 'application/json',
            ...(bearer === undefined ? { apikey: this.#apikey } : { authorization: `Bearer ${bearer}` }),
            ...(payload && { 'content-type': 'application/json', 'content-length': String(payload.length) }),
            ...headers,
          },
          ...(this.#timeoutMs > 0 && { timeout: this.#timeoutMs }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => reject(new TransportError(`Reading the reply of ${method} ${path} failed: ${e.message}`, e)));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parseReply(Buffer.concat(chunks).toString('utf8')) }),
          );
        },
      );
      req.on('timeout', () => req.destroy(new Error(`timed out after ${this.#timeoutMs} ms`)));
      req.on('error', (e) => reject(new TransportError(`Could not reach ${this.baseUrl.origin}: ${e.message}`, e)));
      req.end(payload);
    });
  }

  /**
   * Sends a GET whose reply is a stream (events, a download): resolves with the response once its
   * status is below 400, to be read as it comes; a status >= 400 is read whole and thrown as ApiError.
   * Aborting `signal` ends the request.
   */
  stream(path: string, { query, signal, headers }: StreamOptions = {}): Promise<http.IncomingMessage> {
    const url = this.#url(path, query);
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(url, {
        method: 'GET',
        agent: this.#agent,
        headers: { accept: 'text/event-stream', apikey: this.#apikey, ...headers },
        ...(signal && { signal }),
      });
      req.on('response', (res) => {
        if ((res.statusCode ?? 0) < 400) return resolve(res);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => reject(errorOfReply(res.statusCode ?? 0, parseReply(Buffer.concat(chunks).toString('utf8')), 'GET', path)));
      });
      req.on('error', (e) => reject(new TransportError(`Could not reach ${this.baseUrl.origin}: ${e.message}`, e)));
      req.end();
    });
  }

  #url(path: string, query: Query | undefined): URL {
    const url = new URL(this.baseUrl.toString());
    url.pathname = joinPath(this.basePath, path);
    url.search = encodeQuery(query);
    return url;
  }

  /** Frees pooled connections so a short-lived process can exit at once. */
  close(): void {
    this.#agent.destroy();
  }
}

function tlsOptions(verify: Verify): https.AgentOptions {
  if (verify === false) return { rejectUnauthorized: false };
  if (verify === true) return {};
  try {
    return { ca: readFileSync(verify) };
  } catch (e) {
    throw new RunyardValueError(`The CA certificate file "${verify}" cannot be read: ${(e as Error).message}`);
  }
}
