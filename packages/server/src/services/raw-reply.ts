import type { Readable } from 'node:stream';

/** What a handler returns to answer with bytes of its own (a download) instead of JSON: a status, headers and the body's stream. */
export class RawReply {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: Readable,
  ) {}
}
