// Builds the server's native part (packages/server/native): posix-spawn.node, with which the
// spawner starts tasks without a fork (posix-spawn.c says why), and runyard-enter, the static first
// program of a task that runs in an image (runyard-enter.c says why). Best effort: without a C
// compiler or Node's headers the build says so; the spawner then uses Node's spawn, and jobs in an
// image fail with a message that says how to build it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const source = path.join(root, 'packages/server/native/posix-spawn.c');
const output = path.join(root, 'packages/server/native/build/posix-spawn.node');

/** Node's headers: beside its binary (official builds, Debian's nodejs), or npm's nodedir. */
function nodeHeaders() {
  const candidates = [path.join(path.dirname(path.dirname(process.execPath)), 'include/node')];
  if (process.env.npm_config_nodedir) candidates.push(path.join(process.env.npm_config_nodedir, 'include/node'));
  return candidates.find((dir) => existsSync(path.join(dir, 'node_api.h')) && existsSync(path.join(dir, 'uv.h')));
}

function build() {
  if (process.platform !== 'linux') return 'posix-spawn is built on Linux only';
  // Made already from this source (a build runs at every `npm start`): nothing to look for.
  if (existsSync(output) && statSync(output).mtimeMs >= statSync(source).mtimeMs) return null;
  const headers = nodeHeaders();
  if (!headers) return "Node's headers (node_api.h, uv.h) were not found";
  mkdirSync(path.dirname(output), { recursive: true });
  const cc = process.env.CC || 'cc';
  // Written beside it, then renamed over it: a running server's spawner has the old one mapped, and
  // a compiler writing into that file in place would pull it from under the process.
  const draft = `${output}.${process.pid}`;
  try {
    execFileSync(cc, ['-O2', '-Wall', '-shared', '-fPIC', '-I', headers, '-o', draft, source], { stdio: ['ignore', 'inherit', 'pipe'] });
    renameSync(draft, output);
  } catch (e) {
    rmSync(draft, { force: true });
    return `${cc} failed: ${String(e.stderr || e.message)
      .trim()
      .split('\n')
      .slice(0, 5)
      .join(' ')}`;
  }
  return null;
}

const enterSource = path.join(root, 'packages/server/native/runyard-enter.c');
const enterOutput = path.join(root, 'packages/server/native/build/runyard-enter');

function buildEnter() {
  if (process.platform !== 'linux') return 'runyard-enter is built on Linux only';
  if (existsSync(enterOutput) && statSync(enterOutput).mtimeMs >= statSync(enterSource).mtimeMs) return null;
  mkdirSync(path.dirname(enterOutput), { recursive: true });
  const cc = process.env.CC || 'cc';
  const draft = `${enterOutput}.${process.pid}`;
  try {
    // Static: it runs in the image's root, whose libraries it must not load (libc6-dev has libc.a).
    execFileSync(cc, ['-O2', '-Wall', '-static', '-o', draft, enterSource], { stdio: ['ignore', 'inherit', 'pipe'] });
    renameSync(draft, enterOutput);
  } catch (e) {
    rmSync(draft, { force: true });
    return `${cc} -static failed: ${String(e.stderr || e.message)
      .trim()
      .split('\n')
      .slice(0, 5)
      .join(' ')}`;
  }
  return null;
}

const failed = build();
if (failed) console.log(`runyard: the native spawner was not built (${failed}); tasks start through Node's spawn.`);
const enterFailed = buildEnter();
if (enterFailed) console.log(`runyard: runyard-enter was not built (${enterFailed}); jobs in a container image cannot run.`);
