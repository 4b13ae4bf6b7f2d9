import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RunyardClient, TransportError, type JobEvent } from '@runyard/client';

// followJob over a stream that drops: a server that answers GET /api/runyard/jobs/{id}/events as the
// Runyard server does (log events with the offset after their lines, then end), but cuts the
// connection mid-way, as a restarting server or a proxy would.

const LOG = ['one\n', 'two\n', 'three\n', 'four\n'];
const offsetAfter = (n: number) => LOG.slice(0, n).join('').length;

describe('followJob reconnects a dropped stream', () => {
  let server: Server;
  let url = '';
  /** The offset each events request asked for, in order. */
  const asked: number[] = [];
  /** How many requests drop (after sending one line) before one runs to the end. */
  let drops = 0;

  before(async () => {
    server = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      const from = Number(query.get('offset') ?? 0);
      asked.push(from);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const first = LOG.findIndex((_, i) => offsetAfter(i) === from);
      const send = (i: number) =>
        res.write(`event: log\nid: ${offsetAfter(i + 1)}\ndata: ${JSON.stringify({ offset: offsetAfter(i + 1), text: LOG[i] })}\n\n`);
      if (drops > 0) {
        drops--;
        send(first);
        // Dropped before the end: the socket closes without the end event.
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      for (let i = first; i < LOG.length; i++) send(i);
      res.end(`event: end\ndata: ${JSON.stringify({ status: 'completed', statusMessage: null, exitCode: 0 })}\n\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function follow(reconnects?: number): Promise<JobEvent[]> {
    const client = new RunyardClient({ platformUrl: url, apikey: 'ry_test' });
    try {
      const events: JobEvent[] = [];
      for await (const e of client.followJob('0123456789abcdef01234567', '0123456789abcdef01234568', { reconnects })) events.push(e);
      return events;
    } finally {
      client.close();
    }
  }

  it('reopens the stream from the last offset received: every line once, in order, then the end', async () => {
    asked.length = 0;
    drops = 2;
    const events = await follow();
    assert.deepEqual(
      events.filter((e) => e.type === 'log').map((e) => (e as { text: string }).text),
      LOG,
    );
    assert.deepEqual(events.at(-1), { type: 'end', status: 'completed', statusMessage: null, exitCode: 0 });
    assert.deepEqual(asked, [0, offsetAfter(1), offsetAfter(2)]);
  });

  it('gives up after `reconnects` drops in a row without an event', async () => {
    asked.length = 0;
    // Each stream sends a line, so the count starts again: drops with progress never exhaust it.
    drops = 3;
    assert.equal((await follow(1)).length, LOG.length + 1);
    // A server that refuses every connection: the error once the reconnects are spent.
    const closed = new RunyardClient({ platformUrl: 'http://127.0.0.1:9', apikey: 'ry_test' });
    await assert.rejects(async () => {
      for await (const _ of closed.followJob('0123456789abcdef01234567', '0123456789abcdef01234568', { reconnects: 1 })) void _;
    }, TransportError);
    closed.close();
  });
});
