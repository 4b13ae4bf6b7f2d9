// A stand-in for the internet, never off the machine: a network namespace of its own, joined to the
// host by a veth pair, with an HTTP server that answers on a public address (198.51.100.1,
// TEST-NET-2), a private one (10.254.254.1) and the cloud metadata address (169.254.169.254).
// The host routes the two others through the veth, so the test process reaches all three: a task
// that reaches only the first proves the sandbox's filter, not a missing route. Needs root (ip netns).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

export const PUBLIC = '198.51.100.1';
export const PRIVATE = '10.254.254.1';
export const METADATA = '169.254.169.254';
const HOST_SIDE = '198.51.100.2';

export const canMakeInternet: false | string = process.getuid?.() === 0 ? false : 'needs root (ip netns) to make the test internet';

export interface Internet {
  /** The port its HTTP server answers on, at each of its addresses, with the body "internet". */
  port: number;
  close(): Promise<void>;
}

const SERVER = `
const http = require('node:http');
const s = http.createServer((q, r) => r.end('internet')).listen(0, '0.0.0.0', () => console.log(s.address().port));
process.stdin.on('end', () => process.exit(0)).resume();
`;

/** The namespaces of runs that were killed before their clean-up (their process is gone): their veth and routes go with them. */
function removeStaleInternets(): void {
  const listed = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  for (const m of listed.matchAll(/^runyard-internet-(\d+)/gm)) {
    try {
      process.kill(Number(m[1]), 0);
    } catch {
      execFileSync('ip', ['netns', 'del', m[0]], { stdio: 'ignore' });
    }
  }
}

export async function makeInternet(): Promise<Internet> {
  const tag = `ryi${process.pid % 100000}`;
  const ns = `runyard-internet-${process.pid}`;
  const ip = (...args: string[]) => {
    try {
      execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      throw new Error(`ip ${args.join(' ')}: ${String((e as { stderr?: Buffer }).stderr ?? e).trim()}`);
    }
  };
  const undo = () => {
    for (const args of [
      ['route', 'del', `${PRIVATE}/32`],
      ['route', 'del', `${METADATA}/32`],
      ['link', 'del', `${tag}a`],
      ['netns', 'del', ns],
    ]) {
      try {
        ip(...args);
      } catch {
        // Not made.
      }
    }
  };
  undo();
  removeStaleInternets();
  let server: ChildProcess | undefined;
  try {
    ip('netns', 'add', ns);
    ip('link', 'add', `${tag}a`, 'type', 'veth', 'peer', 'name', `${tag}b`);
    ip('link', 'set', `${tag}b`, 'netns', ns);
    ip('addr', 'add', `${HOST_SIDE}/24`, 'dev', `${tag}a`);
    ip('link', 'set', `${tag}a`, 'up');
    const inNs = (...args: string[]) => ip('-n', ns, ...args);
    inNs('addr', 'add', `${PUBLIC}/24`, 'dev', `${tag}b`);
    inNs('addr', 'add', `${PRIVATE}/32`, 'dev', `${tag}b`);
    inNs('addr', 'add', `${METADATA}/32`, 'dev', `${tag}b`);
    inNs('link', 'set', `${tag}b`, 'up');
    inNs('link', 'set', 'lo', 'up');
    inNs('route', 'add', 'default', 'via', HOST_SIDE);
    // replace: a route left by a run that was killed before its clean-up is taken over.
    ip('route', 'replace', `${PRIVATE}/32`, 'via', PUBLIC);
    ip('route', 'replace', `${METADATA}/32`, 'via', PUBLIC);
    server = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', SERVER], { stdio: ['pipe', 'pipe', 'inherit'] });
    const [line] = (await once(server.stdout!, 'data')) as [Buffer];
    const port = Number(line.toString().trim());
    // Reached from the host at every address: what a task cannot reach is the sandbox's doing.
    for (const address of [PUBLIC, PRIVATE, METADATA]) {
      let body = '';
      for (let i = 0; i < 50 && body !== 'internet'; i++) {
        body = await fetch(`http://${address}:${port}/`).then(
          (r) => r.text(),
          () => '',
        );
        if (body !== 'internet') await sleep(100);
      }
      if (body !== 'internet') throw new Error(`the test internet does not answer at ${address}:${port}`);
    }
    const running = server;
    return {
      port,
      async close() {
        running.stdin!.end();
        await once(running, 'exit');
        undo();
      },
    };
  } catch (e) {
    server?.kill('SIGKILL');
    undo();
    throw e;
  }
}
