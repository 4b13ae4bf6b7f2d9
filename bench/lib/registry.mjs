// A registry for B9: Debian's docker-registry (the reference registry) on 127.0.0.1, a free port,
// storage in a temporary directory, anonymous, plain HTTP (the same as test/support/registry.ts,
// without its htpasswd). Images are pushed with skopeo from an OCI layout. stop() ends the
// registry and removes its directory; the process's exit kills it too.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../../packages/server/dist/executors/find-executable.js';

const TOOLS = ['docker-registry', 'skopeo', 'umoci'];

/** Why B9 cannot run here (a tool missing), or null. */
export function registryToolsMissing() {
  const missing = TOOLS.filter((tool) => !findOnPath(tool, process.env.PATH ?? ''));
  return missing.length ? `${missing.join(', ')} not installed (Debian: apt-get install docker-registry skopeo umoci)` : null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Starts the registry; answers { host: '127.0.0.1:PORT', push(layout, tag, name) -> digest, stop() }. */
export async function startRegistry() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-bench-registry-'));
  const host = `127.0.0.1:${await freePort()}`;
  const config = `version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: ${host}\n`;
  writeFileSync(`${dir}/config.yml`, config);
  const child = spawn('docker-registry', ['serve', `${dir}/config.yml`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (d) => (output += d.toString()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`docker-registry exited (${child.exitCode}):\n${output}`);
      const status = await fetch(`http://${host}/v2/`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (Date.now() > deadline) throw new Error(`docker-registry did not answer on ${host} within 20 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const push = (layout, tag, name) => {
    const digestFile = `${dir}/digest`;
    const args = [
      'copy',
      '--quiet',
      '--dest-tls-verify=false',
      `--digestfile=${digestFile}`,
      `oci:${layout}:${tag}`,
      `docker://${host}/${name}`,
    ];
    execFileSync('skopeo', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    return readFileSync(digestFile, 'utf8').trim();
  };
  return { host, push, stop };
}
