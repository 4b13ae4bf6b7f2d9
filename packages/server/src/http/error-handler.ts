import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isoNow, type ErrorBody, type ErrorCode, ERROR_CODES } from '@runyard/contract';
import { AppError } from '../errors/app-error.js';
import { redactUrl } from './redact-url.js';
import { quoted } from '../errors/quoted.js';

interface AjvError {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** "querystring.pageSize must be <= 1000; body: unknown key "team"": every problem, naming the field. */
function validationMessage(context: string | undefined, errors: AjvError[]): string {
  return errors
    .map((e) => {
      const field = [context, ...e.instancePath.split('/').filter(Boolean)].filter(Boolean).join('.');
      if (e.keyword === 'additionalProperties') return `${field}: unknown key ${quoted(e.params.additionalProperty)}`;
      if (e.keyword === 'required') return `${field ? field + '.' : ''}${String(e.params.missingProperty)} is required`;
      if (e.keyword === 'pattern' && e.params.pattern === '\\S') return `${field} must not be empty or only white space`;
      return `${field} ${e.message ?? 'is not valid'}`;
    })
    .join('; ');
}

function body(code: ErrorCode, message: string, status: number = ERROR_CODES[code].status): ErrorBody {
  return { statusCode: status, code, message, time: isoNow() };
}

/**
 * The wire body of a path no route serves (also what a hidden resource answers, so that it looks
 * the same). Its message never says "session": the public client takes a 404 of the v2 mount
 * whose message does for an unknown session, and one that does not for a server without the v2
 * route (wire-api §2.12), so a path that names sessions is not repeated.
 */
export function routeNotFoundBody(method: string, url: string): ErrorBody {
  const path = url.split('?')[0];
  return body('ROUTE_NOT_FOUND', /session/i.test(path) ? `No route ${method} for this path.` : `No route ${method} ${quoted(path)}.`);
}

/** A wire error body, for replies written outside Fastify (an upgraded socket). */
export function wireErrorBody(code: ErrorCode, message: string, status?: number): ErrorBody {
  return body(code, message, status);
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
};

/** The one place that turns a failure into the wire error body `{statusCode, code, message, time}`. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    let out: ErrorBody;
    if (error instanceof AppError) {
      out = body(error.code, error.message);
      if (error.headers) void reply.headers(error.headers);
    } else if ((error as FastifyError).validation) {
      const e = error as FastifyError;
      out = body('VALIDATION_FAILED', validationMessage(e.validationContext, e.validation as AjvError[]));
    } else if ((error as FastifyError).code && FASTIFY_CODES[(error as FastifyError).code]) {
      out = body(FASTIFY_CODES[(error as FastifyError).code], error.message);
    } else if ((error as FastifyError).statusCode && (error as FastifyError).statusCode! < 500) {
      out = body('BAD_REQUEST', error.message, (error as FastifyError).statusCode);
    } else {
      request.log.error({ err: error, method: request.method, url: redactUrl(request.url) }, 'unexpected error');
      out = body('INTERNAL_ERROR', ERROR_CODES.INTERNAL_ERROR.message);
    }
    void reply.status(out.statusCode).send(out);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(routeNotFoundBody(request.method, request.url));
  });
}

/**
 * Errors Fastify raises before routing (a path that is not valid percent-encoding): same wire body.
 * Fastify's own message repeats the whole URL, query string (and any key in it) included.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
  const message = error.code === 'FST_ERR_BAD_URL' ? 'The URL path is not valid percent-encoded UTF-8.' : error.message;
  void reply.status(status).send(body('BAD_REQUEST', message, status));
}

/** Requests Node's HTTP parser refuses (bad framing, oversized headers) get the wire body too. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const text = JSON.stringify(body('BAD_REQUEST', `The HTTP request could not be read (${STATUS_CODES[status]}).`, status));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}
