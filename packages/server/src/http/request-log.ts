import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { redactUrl } from './redact-url.js';

/** Logger serializers: a request, wherever a log line includes one, shows only its method and redacted URL. */
export const requestSerializers = {
  req: (request: { method?: string; url?: string }) => ({ method: request.method, url: redactUrl(request.url ?? '') }),
};

/**
 * Fastify's request log lines, made readable: its two info lines per request (which drown the
 * start banner) become one debug line per finished request, and every URL is redacted.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
    };
    if (error) request.log.error({ ...line, err: error }, 'request failed while replying');
    else request.log.debug(line, 'request completed');
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: redactUrl(request.url) }, 'no such route');
  }
}
