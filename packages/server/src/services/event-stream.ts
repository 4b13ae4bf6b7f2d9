import type { ServerResponse } from 'node:http';

/** Writes Server-Sent Events: a named event with JSON data (and an id a reconnecting client sends back as Last-Event-ID). */
export interface EventSink {
  event(name: string, data: unknown, id?: string): void;
  /** A comment line: keeps proxies from closing an idle stream. */
  comment(text: string): void;
}

/**
 * What a handler returns to answer with a stream of events (text/event-stream) instead of JSON:
 * `run` writes events until it is done or `signal` says the client went away. Errors before the
 * handler returns it are answered as usual (JSON, with their status); after, the stream just ends.
 */
export class EventStream {
  constructor(readonly run: (sink: EventSink, signal: AbortSignal) => Promise<void>) {}

  /** Answers the request with the stream: headers at once, events as run writes them, then the end. */
  async send(res: ServerResponse): Promise<void> {
    const closed = new AbortController();
    res.on('close', () => closed.abort());
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // Proxies (nginx) would buffer the stream otherwise.
      'x-accel-buffering': 'no',
    });
    const sink: EventSink = {
      event(name, data, id) {
        if (closed.signal.aborted) return;
        res.write(`event: ${name}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
      },
      comment(text) {
        if (!closed.signal.aborted) res.write(`: ${text.replace(/\n/g, ' ')}\n\n`);
      },
    };
    try {
      await this.run(sink, closed.signal);
    } catch (e) {
      sink.event('error', { message: `The stream stopped: ${(e as Error).message}` });
    } finally {
      res.end();
    }
  }
}
