// T20: what a member's job reaches on the network. On the default (outbound) network: the internet
// (a stand-in in a namespace of its own, internet.ts), but not the host's loopback (the platform's
// API, PostgreSQL), the host's own addresses, a private address or the cloud metadata address. On a
// queue's none: nothing. On a queue's host: the host's loopback too, and the server warns at start.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stop, startMain } from '../../../../test/support/server-process.js';
import { usingPostgres } from '../../../../test/support/database.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { canMakeInternet, makeInternet, METADATA, PRIVATE, PUBLIC, type Internet } from './internet.js';
import { finished, world, type World } from './world.js';

/** The host's own IPv4 addresses besides loopback (a task's packets leave as the host's sockets: they must not reach it through them). */
function hostAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);
}

/** A python script that tries each target and prints "<name> REACHED <body>" or "<name> BLOCKED <why>". */
function probeCommand(targets: [string, string, number][]): string {
  const script = [
    'import socket, sys, json',
    `for name, host, port in json.loads(${JSON.stringify(JSON.stringify(targets))}):`,
    '    try:',
    '        s = socket.create_connection((host, port), timeout=10)',
    "        s.sendall(b'GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n')",
    "        body = s.recv(4096).decode(errors='replace').split('\\r\\n\\r\\n')[-1]",
    "        print(name, 'REACHED', body[:40].replace('\\n', ' '))",
    '    except OSError as e:',
    "        print(name, 'BLOCKED', e)",
  ].join('\n');
  return `/usr/bin/python3 -c ${shellQuote(script)}; grep nameserver /etc/resolv.conf; :`;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

describe('T20: the network of a hostile tenant', { timeout: 600_000, skip: canMakeInternet }, () => {
  let internet: Internet;
  let w: World;
  let listener: Server;
  let listenerPort = 0;
  let targets: [string, string, number][] = [];

  const probe = async (queueId?: string): Promise<Map<string, string>> => {
    const id = await w.submit(
      w.mallory.key,
      w.mallory.ws,
      w.mallory.project,
      w.mallory.workflow,
      probeCommand(targets),
      {},
      queueId ? { batch: { enabled: true, jobQueue: queueId } } : {},
    );
    assert.equal(await finished(w, w.mallory.key, w.mallory.ws, id), 'completed');
    const text = readFileSync(path.join(jobPaths(w.dataDir, w.mallory.ws, id).logs, 'stdout.txt'), 'utf8');
    const lines = new Map<string, string>();
    for (const [name] of targets) {
      const m = new RegExp(`^${name} (REACHED|BLOCKED)(.*)$`, 'm').exec(text);
      assert.ok(m, `no result for ${name} in:\n${text}`);
      lines.set(name, `${m[1]}${m[2]}`);
    }
    lines.set('resolv.conf', /^nameserver .*$/m.exec(text)?.[0] ?? '');
    return lines;
  };

  before(async () => {
    internet = await makeInternet();
    listener = createServer((socket) => socket.end('HTTP/1.0 200 OK\r\n\r\nhost-service'));
    await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve));
    listenerPort = (listener.address() as { port: number }).port;
    w = await world('bwrap');
    targets = [
      ['internet', PUBLIC, internet.port],
      ['private', PRIVATE, internet.port],
      ['metadata', METADATA, internet.port],
      ['api', '127.0.0.1', w.port],
      ['loopback-service', '127.0.0.1', listenerPort],
      ...hostAddresses().map((a, i): [string, string, number] => [`host-address-${i}`, a, listenerPort]),
      ...(usingPostgres() ? [['postgresql', '127.0.0.1', 5432] as [string, string, number]] : []),
    ];
  });
  after(async () => {
    await w?.api('PUT', `/api/v2/jobs/${w.sleeperJob}/abort?teamId=${w.admin.ws}&forceAbort=true`, w.admin.key);
    if (w) await stop(w.server);
    listener?.close();
    await internet?.close();
  });

  it('the default network reaches the internet and nothing of the host, its private network or the metadata address', async () => {
    const seen = await probe();
    assert.match(seen.get('internet')!, /^REACHED .*internet/);
    for (const [name] of targets.slice(1)) assert.match(seen.get(name)!, /^BLOCKED/, `${name} was reached: ${seen.get(name)}`);
    assert.equal(seen.get('resolv.conf'), 'nameserver 10.0.2.3');
  });

  it("a pooled namespace serves the next task, of another workspace, with nothing of the one before: mallory's listener is gone", async () => {
    const port = 8000 + (process.pid % 1000);
    const netns = 'readlink /proc/self/ns/net';
    const listen = `import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", ${port})); s.listen(); time.sleep(300)`;
    const left = await w.submit(
      w.mallory.key,
      w.mallory.ws,
      w.mallory.project,
      w.mallory.workflow,
      `setsid /usr/bin/python3 -c ${shellQuote(listen)} >/dev/null 2>&1 </dev/null & sleep 1; ${netns}`,
    );
    assert.equal(await finished(w, w.mallory.key, w.mallory.ws, left), 'completed');
    const nsOf = (text: string) => /^net:\[\d+\]$/m.exec(text)?.[0];
    const leftNs = nsOf(readFileSync(path.join(jobPaths(w.dataDir, w.mallory.ws, left).logs, 'stdout.txt'), 'utf8'));
    const connect = `import socket; s=socket.socket(); s.settimeout(5); print("connect", s.connect_ex(("127.0.0.1", ${port})))`;
    const next = await w.submit(
      w.admin.key,
      w.admin.ws,
      w.admin.project,
      w.admin.workflow,
      `${netns}; /usr/bin/python3 -c ${shellQuote(connect)}`,
    );
    assert.equal(await finished(w, w.admin.key, w.admin.ws, next), 'completed');
    const nextLog = readFileSync(path.join(jobPaths(w.dataDir, w.admin.ws, next).logs, 'stdout.txt'), 'utf8');
    const [nextNs, reached] = [nsOf(nextLog), /^connect .*$/m.exec(nextLog)?.[0]];
    assert.ok(leftNs, "the namespace of mallory's task is in its log");
    assert.equal(nextNs, leftNs, "the next task ran in the namespace mallory's task had (the pool's last given back)");
    assert.equal(reached, 'connect 111', "mallory's listener is gone: the connection is refused");
  });

  it("a queue's none reaches nothing; a queue's host reaches the host's loopback, and the server warns at every start while it exists", async () => {
    const queue = (net: string) =>
      w.api('POST', '/api/runyard/admin/queues', w.admin.key, { workspaceId: w.mallory.ws, name: `net-${net}`, taskNetwork: net });
    const none = await queue('none');
    assert.equal(none.status, 201, JSON.stringify(none.json));
    for (const [name, result] of await probe(none.json.id)) if (name !== 'resolv.conf') assert.match(result, /^BLOCKED/, name);
    const host = await queue('host');
    assert.equal(host.status, 201, JSON.stringify(host.json));
    const onHost = await probe(host.json.id);
    assert.match(onHost.get('internet')!, /^REACHED/);
    assert.match(onHost.get('loopback-service')!, /^REACHED .*host-service/);
    await w.api('PUT', `/api/v2/jobs/${w.sleeperJob}/abort?teamId=${w.admin.ws}&forceAbort=true`, w.admin.key);
    await stop(w.server);
    w.server = startMain(w.env);
    await w.server.waitFor(new RegExp(`Warning: the queue ${w.mallory.ws}/net-host gives job tasks the host's network`));
  });
});
