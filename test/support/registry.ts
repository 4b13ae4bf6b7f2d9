import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../../packages/server/src/executors/find-executable.js';

/**
 * Debian's docker-registry (the reference registry, distribution 2.8) for tests: on 127.0.0.1, a
 * free port, storage in a temporary directory, optionally with htpasswd authentication (bcrypt,
 * `htpasswd -B`: the only hash the registry accepts). Tests push with skopeo and pull with the
 * server's image cache, all over plain HTTP (give the cache `insecureRegistries: [registry.host]`).
 */
export interface TestRegistry {
  /** `127.0.0.1:PORT`: the registry part of an image reference. */
  host: string;
  /** Pushes `<layout>:<tag>` (an OCI layout) as `host/<name>`; returns the manifest's digest. */
  push(layout: string, tag: string, name: string): string;
  stop(): Promise<void>;
}

export interface RegistryAccount {
  username: string;
  password: string;
}

const TOOLS = ['docker-registry', 'skopeo', 'umoci', 'htpasswd'];

/** Why the registry tests cannot run here (a tool missing), or null. CI installs them (.ci/run). */
export function registryToolsMissing(): string | null {
  const missing = TOOLS.filter((tool) => !findOnPath(tool, process.env.PATH ?? ''));
  return missing.length ? `${missing.join(', ')} not installed (bash .ci/run installs them)` : null;
}

/** A port of 127.0.0.1 where nothing listens now (a registry that is down, or one to start). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function startRegistry(account?: RegistryAccount): Promise<TestRegistry> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-registry-'));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const auth = account ? `auth:\n  htpasswd:\n    realm: runyard-test\n    path: ${dir}/htpasswd\n` : '';
  if (account) {
    // -i: the password from stdin, not an argument.
    execFileSync('htpasswd', ['-B', '-i', '-c', `${dir}/htpasswd`, account.username], {
      input: account.password,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
  }
  const config = `version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: ${host}\n${auth}`;
  writeFileSync(`${dir}/config.yml`, config);
  const child = spawn('docker-registry', ['serve', `${dir}/config.yml`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await untilAnswers(host, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  const authFile = `${dir}/push-auth.json`;
  const auths = account ? { [host]: { auth: Buffer.from(`${account.username}:${account.password}`).toString('base64') } } : {};
  writeFileSync(authFile, JSON.stringify({ auths }), { mode: 0o600 });
  const push = (layout: string, tag: string, name: string) => {
    const digestFile = `${dir}/digest`;
    const args = ['copy', '--quiet', '--dest-tls-verify=false', `--dest-authfile=${authFile}`, `--digestfile=${digestFile}`];
    execFileSync('skopeo', [...args, `oci:${layout}:${tag}`, `docker://${host}/${name}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    return readFileSync(digestFile, 'utf8').trim();
  };
  return { host, push, stop };
}

/** Waits until GET /v2/ answers (200 anonymous, 401 with htpasswd). */
async function untilAnswers(host: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited (${child.exitCode}):\n${output()}`);
    const status = await fetch(`http://${host}/v2/`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200 || status === 401) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`docker-registry did not answer on ${host} within 20 s:\n${output()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
