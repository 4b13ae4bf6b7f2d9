import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startBashJobServer, type BashJobServer } from './bash-job-server.js';

/**
 * A queue's task network: a job of a queue created with taskNetwork none or outbound, or of the
 * workspace's default queue (the server's setting, outbound), cannot reach a service on the host's
 * loopback; a job of a queue created with taskNetwork host can.
 */
describe("a queue's task network, through the server", { timeout: 300_000 }, () => {
  let w: BashJobServer;
  let listener: Server;
  let port = 0;
  // bash's /dev/tcp: a connection to the host's loopback listener, or the reason it failed.
  const probe = () => `if exec 3<>/dev/tcp/127.0.0.1/${port}; then echo REACHED; else echo BLOCKED; fi; echo probed`;
  const run = async (queueId?: string): Promise<string> => {
    const id = await w.submit(probe(), {
      name: 'network',
      resourceRequirements: { cpu: 1, ram: 1 },
      ...(queueId && { batch: { enabled: true, jobQueue: queueId } }),
    });
    const job = await w.ended(id);
    assert.equal(job.status, 'completed', w.logOf(id));
    return w.logOf(id);
  };

  before(async () => {
    listener = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
    w = await startBashJobServer();
  });
  after(async () => {
    await w.close();
    listener.close();
  });

  it("a queue's taskNetwork is reported, and only a host queue's jobs reach the host's loopback; the default queue follows the server (outbound)", async () => {
    const queue = await w.ok('POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'offline', taskNetwork: 'none' });
    assert.equal(queue.taskNetwork, 'none');
    const { queues } = await w.ok('GET', `/api/runyard/admin/queues?workspaceId=${w.ws}`);
    const defaults = queues.filter((q: { name: string }) => q.name === 'default');
    assert.deepEqual(
      defaults.map((q: { taskNetwork: unknown }) => q.taskNetwork),
      [null],
    );
    assert.match(await run(queue.id), /^BLOCKED$/m);
    assert.match(await run(), /^BLOCKED$/m);
    const outbound = await w.ok('POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'outbound', taskNetwork: 'outbound' });
    assert.equal(outbound.taskNetwork, 'outbound');
    assert.match(await run(outbound.id), /^BLOCKED$/m);
    const host = await w.ok('POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'hostnet', taskNetwork: 'host' });
    assert.match(await run(host.id), /^REACHED$/m);
  });

  it('refuses a task network other than outbound, host or none, creating nothing', async () => {
    const r = await w.api('POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'odd', taskNetwork: 'bridge' });
    assert.equal(r.status, 400, JSON.stringify(r.json));
    const { queues } = await w.ok('GET', `/api/runyard/admin/queues?workspaceId=${w.ws}`);
    assert.ok(!queues.some((q: { name: string }) => q.name === 'odd'));
  });
});
