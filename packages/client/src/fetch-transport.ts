// The transport of a page: the browser's fetch, authenticated by the dashboard's session cookie
// (same origin) with its CSRF token on writes. Only web APIs (fetch, URL, TextDecoder, AbortController).
import {
  encodeQuery,
  errorOfReply,
  joinPath,
  parseReply,
  type ApiTransport,
  type ByteStream,
  type HeaderValues,
  type Query,
  type RawResponse,
  type RequestOptions,
  type StreamOptions,
} from './api-transport.js';
import { RunyardValueError, TransportError } from './errors.js';
import { CSRF_HEADER } from '@runyard/contract';

export interface FetchTransportOptions {
  /** The server's URL (may carry a path prefix); default: the page's own origin. Relative to the page when not absolute. */
  baseUrl?: string;
  /** The session's CSRF token (from login or currentSession), sent on every request that is not a GET or HEAD. */
  csrfToken?: () => string | undefined;
  /** Sent with every request (e.g. `{apikey}` outside a browser). */
  headers?: Record<string, string>;
}

/** Methods that change nothing: they carry no CSRF token. */
const READS = new Set(['GET', 'HEAD']);

interface Sent {
  res: Response;
  /** Ends the request's tracking once its body is read (or given up). */
  done(): void;
}

export class FetchTransport implements ApiTransport {
  readonly baseUrl: URL;
  readonly basePath: string;
  readonly #csrfToken: (() => string | undefined) | undefined;
  readonly #headers: Record<string, string>;
  /** Requests whose reply is not read yet: close() aborts them. */
  readonly #inFlight = new Set<AbortController>();

  constructor(options: FetchTransportOptions = {}) {
    const page = (globalThis as { location?: { href?: string } }).location?.href;
    let base: URL;
    try {
      base = new URL(options.baseUrl ?? '/', page);
    } catch {
      throw new RunyardValueError(
        page === undefined
          ? `The base URL "${options.baseUrl ?? ''}" is not an absolute URL (outside a page there is no origin to take).`
          : `The base URL "${options.baseUrl ?? ''}" is not a valid URL.`,
      );
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new RunyardValueError(`The base URL must start with http:// or https://, not "${base.protocol}".`);
    }
    base.search = '';
    base.hash = '';
    this.baseUrl = base;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.#csrfToken = options.csrfToken;
    this.#headers = { ...options.headers };
  }

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, path, options);
    if (res.status >= 400) throw errorOfReply(res.status, res.body, method, path);
    return res.body as T;
  }

  async raw(method: string, path: string, { query, body, headers, bearer }: RequestOptions = {}): Promise<RawResponse> {
    const { res, done } = await this.#send(method, path, {
      query,
      headers: {
        accept: 'application/json',
        ...(bearer !== undefined && { authorization: `Bearer ${bearer}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    try {
      return { status: res.status, headers: headersOf(res.headers), body: parseReply(await res.text()) };
    } catch (e) {
      throw new TransportError(`Reading the reply of ${method} ${path} failed: ${messageOf(e)}`, e);
    } finally {
      done();
    }
  }

  /** A GET read as it arrives: the reply's body (a ReadableStream) as an async iterable of byte chunks. */
  async stream(path: string, { query, signal, headers }: StreamOptions = {}): Promise<ByteStream> {
    const { res, done } = await this.#send('GET', path, { query, headers: { accept: 'text/event-stream', ...headers }, signal });
    if (res.status >= 400) {
      try {
        throw errorOfReply(res.status, parseReply(await res.text().catch(() => '')), 'GET', path);
      } finally {
        done();
      }
    }
    const body = res.body;
    return {
      statusCode: res.status,
      headers: headersOf(res.headers),
      [Symbol.asyncIterator]: () => chunksOf(body, path, done),
    };
  }

  /** Aborts the requests in flight (a page leaving, a test ending). */
  close(): void {
    for (const c of this.#inFlight) c.abort();
    this.#inFlight.clear();
  }

  async #send(
    method: string,
    path: string,
    { query, headers, body, signal }: { query?: Query; headers: Record<string, string>; body?: string; signal?: AbortSignal },
  ): Promise<Sent> {
    const url = new URL(this.baseUrl.toString());
    url.pathname = joinPath(this.basePath, path);
    url.search = encodeQuery(query);
    const verb = method.toUpperCase();
    const token = READS.has(verb) ? undefined : this.#csrfToken?.();
    const controller = new AbortController();
    const abort = () => controller.abort(signal?.reason);
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    this.#inFlight.add(controller);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      this.#inFlight.delete(controller);
    };
    try {
      const res = await fetch(url, {
        method: verb,
        credentials: 'same-origin',
        headers: { ...this.#headers, ...(token && { [CSRF_HEADER]: token }), ...headers },
        body,
        signal: controller.signal,
      });
      return { res, done };
    } catch (e) {
      done();
      throw new TransportError(`Could not reach ${this.baseUrl.origin}: ${messageOf(e)}`, e);
    }
  }
}

/** A fetch Headers as a plain record (names are lower-case already). */
function headersOf(headers: Headers): HeaderValues {
  const out: HeaderValues = {};
  headers.forEach((value, name) => (out[name] = value));
  return out;
}

/** The reason of a fetch failure: undici puts the network error in `cause` ("fetch failed" says little). */
function messageOf(e: unknown): string {
  const cause = (e as { cause?: { message?: unknown } } | null)?.cause?.message;
  return typeof cause === 'string' ? `${(e as Error).message} (${cause})` : String((e as Error)?.message ?? e);
}

/** A body's chunks as they arrive (through a reader: not every browser iterates a ReadableStream); giving up early cancels the body. */
async function* chunksOf(body: ReadableStream<Uint8Array> | null, path: string, done: () => void): AsyncGenerator<Uint8Array> {
  if (!body) return done();
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (e) {
        finished = true;
        throw new TransportError(`Reading the reply of GET ${path} failed: ${messageOf(e)}`, e);
      }
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
    done();
  }
}
