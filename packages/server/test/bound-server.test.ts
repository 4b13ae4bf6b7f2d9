import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { bindServer, ListenError } from '../src/http/bound-server.js';

const get = (port: number) =>
  new Promise<string>((resolve, reject) =>
    http
      .get({ host: '127.0.0.1', port, path: '/' }, (r) => {
        let body = '';
        r.on('data', (c) => (body += c)).on('end', () => resolve(body));
      })
      .on('error', reject),
  );

describe('bindServer (the socket bound before the data directory)', () => {
  it('holds requests that arrive before the app is ready, and hands them over by serve()', async () => {
    const bound = await bindServer(loadConfig({ RUNYARD_PORT: '0' }));
    try {
      const { port } = bound.server.address() as AddressInfo;
      const early = get(port);
      bound.serverFactory((_req, res) => res.end('served'));
      // Not yet: the request waits, neither answered nor refused.
      const pending = await Promise.race([early, new Promise((r) => setTimeout(() => r('waiting'), 200))]);
      assert.equal(pending, 'waiting');
      bound.serve();
      assert.equal(await early, 'served');
      assert.equal(await get(port), 'served');
    } finally {
      await bound.close();
    }
  });

  it('a port in use: a ListenError naming RUNYARD_PORT', async () => {
    const first = await bindServer(loadConfig({ RUNYARD_PORT: '0' }));
    try {
      const { port } = first.server.address() as AddressInfo;
      await assert.rejects(
        bindServer(loadConfig({ RUNYARD_PORT: String(port) })),
        (e: unknown) =>
          e instanceof ListenError && e.message.includes(`Port ${port} is already in use`) && e.message.includes('RUNYARD_PORT'),
      );
    } finally {
      await first.close();
    }
  });

  it('an address not of this machine: a ListenError naming RUNYARD_HOST', async () => {
    await assert.rejects(
      bindServer(loadConfig({ RUNYARD_PORT: '0', RUNYARD_HOST: '192.0.2.1' })),
      (e: unknown) => e instanceof ListenError && e.message.includes('RUNYARD_HOST'),
    );
  });
});
