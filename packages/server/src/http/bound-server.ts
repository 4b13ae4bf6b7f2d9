import { readFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Config } from '../config.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The listening socket, bound before anything else happens at start, so that a port already in
 * use stops the start before a data directory or database is created. Requests that arrive before
 * the app is ready wait, and are handed to it by serve().
 */
export interface BoundServer {
  server: http.Server;
  /** Fastify's `serverFactory`: gives it this server and takes its request handler. */
  serverFactory(handler: Handler): http.Server;
  /** Starts handing requests to the app, those that waited first. */
  serve(): void;
  /** Stops accepting connections; resolves once those in flight have ended. */
  close(): Promise<void>;
}

/** A start problem a person can fix: the message says which setting to change. */
export class ListenError extends Error {}

function listenErrorOf(error: NodeJS.ErrnoException, { host, port }: Config): Error {
  if (error.code === 'EADDRINUSE')
    return new ListenError(
      `Port ${port} is already in use on ${host}: stop the program using it, or choose another port with RUNYARD_PORT (for example RUNYARD_PORT=8081).`,
    );
  if (error.code === 'EACCES')
    return new ListenError(`This user may not listen on port ${port}: choose a port above 1023 with RUNYARD_PORT.`);
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
    return new ListenError(
      `Cannot listen on ${host}: it is not an address of this machine. Set RUNYARD_HOST (127.0.0.1: this machine only; 0.0.0.0: every interface).`,
    );
  return error;
}

/** Binds config.host:config.port (HTTPS when a certificate is configured), or throws a ListenError. */
export async function bindServer(config: Config): Promise<BoundServer> {
  const server = config.tlsCertFile
    ? https.createServer({ cert: readFileSync(config.tlsCertFile), key: readFileSync(config.tlsKeyFile) })
    : http.createServer();
  // Fastify's own server defaults: idle keep-alive behind load balancers, no limit on long uploads.
  server.keepAliveTimeout = 72_000;
  server.requestTimeout = 0;
  let handler: Handler | undefined;
  let serving = false;
  const waiting: [IncomingMessage, ServerResponse][] = [];
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (serving && handler) handler(request, response);
    else waiting.push([request, response]);
  });
  await new Promise<void>((resolve, reject) => {
    const fail = (e: NodeJS.ErrnoException) => reject(listenErrorOf(e, config));
    server.once('error', fail);
    server.listen({ host: config.host, port: config.port }, () => {
      server.off('error', fail);
      resolve();
    });
  });
  return {
    server,
    serverFactory(h) {
      handler = h;
      return server;
    },
    serve() {
      if (!handler) throw new Error('serve() before the app took the server');
      serving = true;
      for (const [request, response] of waiting.splice(0)) handler(request, response);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
