// T20, a task whose port the server reaches (the managed Cromwell: TaskSpec.forwardPort). Its
// namespace is the default outbound one, with the port forwarded from the host's 127.0.0.1 by
// slirp4netns: the server reaches it, while the task reaches the internet (a stand-in,
// internet.ts) and nothing of the host. On a `none` network the same forward, and nothing out.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TaskNetwork } from '../../src/config.js';
import type { TaskSpec } from '../../src/executors/executor.js';
import { createExecutors } from '../../src/executors/registry.js';
import { waitFor } from '../scheduler/helpers.js';
import { canMakeInternet, makeInternet, METADATA, PUBLIC, type Internet } from './internet.js';

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Serves "task-service" on 0.0.0.0:port of its namespace, then tries each target and prints
 * "<name> REACHED" or "<name> BLOCKED", then serves until killed.
 */
function serveAndProbe(port: number, targets: [string, string, number][]): string {
  return [
    'import socket, json, threading, http.server',
    'class H(http.server.BaseHTTPRequestHandler):',
    '    def do_GET(self):',
    "        self.send_response(200); self.end_headers(); self.wfile.write(b'task-service')",
    '    def log_message(self, *a): pass',
    `srv = http.server.HTTPServer(('0.0.0.0', ${port}), H)`,
    'threading.Thread(target=srv.serve_forever, daemon=True).start()',
    `for name, host, port in json.loads(${JSON.stringify(JSON.stringify(targets))}):`,
    '    try:',
    '        socket.create_connection((host, port), timeout=10).close()',
    "        print(name, 'REACHED', flush=True)",
    '    except OSError as e:',
    "        print(name, 'BLOCKED', e, flush=True)",
    "print('probed', flush=True)",
    'threading.Event().wait()',
  ].join('\n');
}

describe('T20: a task whose port the server reaches', { timeout: 300_000, skip: canMakeInternet }, () => {
  let internet: Internet;
  let listener: Server;
  let scratch: string;
  let targets: [string, string, number][] = [];

  before(async () => {
    internet = await makeInternet();
    listener = createServer((socket) => socket.end('HTTP/1.0 200 OK\r\n\r\nhost-service'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-forward-'));
    targets = [
      ['internet', PUBLIC, internet.port],
      ['metadata', METADATA, internet.port],
      ['loopback-service', '127.0.0.1', (listener.address() as AddressInfo).port],
      ['gateway-service', '10.0.2.2', (listener.address() as AddressInfo).port],
    ];
  });
  after(async () => {
    listener?.close();
    await internet?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const runServing = async (network: TaskNetwork) => {
    const dataDir = path.join(scratch, network);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const executor = createExecutors({
      sandbox: 'bwrap',
      taskNetwork: network,
      taskPath: '/usr/local/bin:/usr/bin:/bin',
      cgroups: 'none',
      localCpus: 2,
      dataDir,
    }).local;
    const port = await freePort();
    const work = path.join(dataDir, 'work');
    mkdirSync(work, { mode: 0o777 });
    const logFile = path.join(dataDir, 'stdout.txt');
    const task: TaskSpec = {
      argv: ['/usr/bin/python3', '-c', serveAndProbe(port, targets)],
      env: { PATH: '/usr/bin:/bin' },
      cwd: work,
      logFile,
      forwardPort: port,
    };
    const control = { dir: path.join(dataDir, 'control'), attempt: 1 };
    const id = await executor.launch(task, control);
    try {
      const log = await waitFor(
        'the probes',
        async () => {
          const text = readFileSync(logFile, 'utf8');
          return /^probed$/m.test(text) ? text : undefined;
        },
        120_000,
      );
      const res = await fetch(`http://127.0.0.1:${port}/`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'task-service');
      const seen = new Map<string, string>();
      for (const [name] of targets) seen.set(name, new RegExp(`^${name} (REACHED|BLOCKED)`, 'm').exec(log)?.[1] ?? `none in ${log}`);
      return seen;
    } finally {
      await executor.kill(id, { force: true, graceMs: 0 });
    }
  };

  it('on the default network: the server reaches its port, it reaches the internet and nothing of the host', async () => {
    const seen = await runServing('outbound');
    assert.deepEqual(Object.fromEntries(seen), {
      internet: 'REACHED',
      metadata: 'BLOCKED',
      'loopback-service': 'BLOCKED',
      'gateway-service': 'BLOCKED',
    });
  });

  it('on a none network: the server reaches its port, and it reaches nothing', async () => {
    const seen = await runServing('none');
    assert.deepEqual(Object.fromEntries(seen), {
      internet: 'BLOCKED',
      metadata: 'BLOCKED',
      'loopback-service': 'BLOCKED',
      'gateway-service': 'BLOCKED',
    });
  });
});
