// What the operations need from a transport, whichever carries the requests: the node one (API key,
// TLS options) or the browser's fetch (session cookie, CSRF header). Nothing here needs node.
import { apiErrorFor, type ApiError } from './errors.js';
import { statusText } from './http-status.js';

export type QueryValue = string | number | boolean | null | undefined | Array<string | number | boolean>;
export type Query = Record<string, QueryValue>;

/** Reply headers by lower-case name (node's IncomingHttpHeaders fits). */
export type HeaderValues = Record<string, string | string[] | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sends `Authorization: Bearer <token>` instead of the apikey header (the workflow-engine routes). */
  bearer?: string;
}

export interface RawResponse {
  status: number;
  headers: HeaderValues;
  body: unknown;
}

export interface StreamOptions {
  query?: Query;
  /** Aborting it ends the request. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** A reply read as it arrives: its status and headers, and its body as byte chunks (node's IncomingMessage fits). */
export interface ByteStream extends AsyncIterable<Uint8Array> {
  readonly statusCode?: number;
  readonly headers: HeaderValues;
}

export interface ApiTransport {
  /** The server's base URL (with its path prefix, if any). */
  readonly baseUrl: URL;
  /** The base URL's path prefix without a trailing slash ('' when none). */
  readonly basePath: string;
  /** Sends a request and returns the parsed JSON body; a status >= 400 is thrown as ApiError. */
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T>;
  /** Sends a request and returns status, headers and parsed body whatever the status. */
  raw(method: string, path: string, options?: RequestOptions): Promise<RawResponse>;
  /** A GET whose reply is read as it comes (events); a status >= 400 is read whole and thrown as ApiError. */
  stream(path: string, options?: StreamOptions): Promise<ByteStream>;
  /** Ends what the transport holds open (pooled connections, requests in flight). */
  close(): void;
}

/** Builds `?a=1&b=x&b=y`: arrays become repeated keys; undefined and null are left out. */
export function encodeQuery(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** `basePath` + `path` (a leading slash added when missing): the path part of a route's URL. */
export function joinPath(basePath: string, path: string): string {
  return `${basePath}${path.startsWith('/') ? path : `/${path}`}`;
}

/** The typed error for a reply with status >= 400: the server's message and code, else the status text. */
export function errorOfReply(status: number, body: unknown, method: string, path: string): ApiError {
  const b = body as { message?: unknown; code?: unknown } | null | undefined;
  const message = typeof b?.message === 'string' ? b.message : statusText(status);
  return apiErrorFor(status, typeof b?.code === 'string' ? b.code : undefined, message, method, path);
}

/** A reply's text as JSON when it is JSON, as the text otherwise, undefined when empty. */
export function parseReply(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
