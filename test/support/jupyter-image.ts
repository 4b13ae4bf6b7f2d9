import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A Jupyter image built offline from this host's Debian jupyter-notebook (no registry, no
 * network), as a lab would build its own notebook image: one layer with the host's python3, its
 * standard library (without its static build files), the packages of /usr/lib/python3/dist-packages
 * that Jupyter Notebook and its kernel import, /usr/share/jupyter (the kernel spec), the jupyter
 * commands, bash, and the shared libraries of all of them (ldd); then a layer with what only the lab
 * has: the Python module `lab_only_lib` in /usr/local/lib/python3.X/dist-packages (on the image's
 * default sys.path, not on the host's), and the variable LAB_IMAGE=1 in the image's Env.
 *
 * Built once per host state (its Python and Jupyter): kept under the temporary directory,
 * `runyard-jupyter-image-<key>`, and reused by later builds until the host's Jupyter changes.
 * The notebook's own JavaScript links into /usr/share/javascript (Debian), which the image leaves
 * out: its pages load, their scripts do not (the tests drive the REST API and kernels).
 */
export interface JupyterImage {
  /** The OCI layout: push `<layout>:<tag>` with TestRegistry.push. */
  layout: string;
  tag: string;
  /** How long this call took, and whether it built the image (false: it was built before). */
  ms: number;
  built: boolean;
}

/** Changes when what this file puts in the image changes: a new build then. */
const RECIPE = 'jupyter-image-2';
const PYTHON = '/usr/bin/python3';
const DIST = '/usr/lib/python3/dist-packages';
/** Parts of the standard library Jupyter never imports (the static library alone is 25 MB). */
const STDLIB_LEFT_OUT = /^(config-[^/]*|test|idlelib|tkinter|turtledemo|ensurepip|lib2to3)$/;
/** What the notebook server and its kernel import: their modules' top-level packages are copied. */
const DISCOVER = `
import sys
import notebook.notebookapp, notebook.services.kernels.kernelmanager, notebook.services.contents.filemanager
import ipykernel.kernelapp, ipykernel.ipkernel, ipykernel.zmqshell, ipykernel_launcher
import IPython.core.interactiveshell, IPython.core.completer
import jupyter_client.ioloop, jupyter_client.manager, nbformat, nbconvert
# Imported inside functions, as the notebook server starts and runs kernels.
import nest_asyncio, tornado.httpclient, tornado.netutil, terminado, send2trash, prometheus_client, argon2, jupyter_client.kernelspec
tops = set()
for m in list(sys.modules.values()):
    f = getattr(m, '__file__', None) or ''
    if f.startswith('${DIST}/'):
        tops.add(f[len('${DIST}/'):].split('/')[0])
print('%d.%d' % sys.version_info[:2])
print('\\n'.join(sorted(tops)))
`;

/** Whether this host can build it: Debian's jupyter-notebook and umoci. */
export function jupyterImageMissing(): string | null {
  if (!existsSync('/usr/bin/jupyter-notebook') || !existsSync(PYTHON)) return "Debian's jupyter-notebook is not installed";
  try {
    execFileSync('umoci', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'umoci is not installed';
  }
  return null;
}

export function buildJupyterImage(): JupyterImage {
  const started = Date.now();
  const key = createHash('sha256')
    .update(
      [
        RECIPE,
        statSync(path.join(DIST, 'notebook')).mtimeMs,
        statSync(path.join(DIST, 'ipykernel')).mtimeMs,
        statSync(PYTHON).mtimeMs,
      ].join('\n'),
    )
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(os.tmpdir(), `runyard-jupyter-image-${key}`);
  const layout = path.join(dir, 'layout');
  const tag = 'lab';
  if (existsSync(path.join(dir, 'done'))) return { layout, tag, ms: Date.now() - started, built: false };

  // Built beside, then renamed into place: a layout that is there is whole (test files may build at once).
  const work = mkdtempSync(path.join(os.tmpdir(), 'runyard-jupyter-build-'));
  try {
    const [version, ...tops] = execFileSync(PYTHON, ['-c', DISCOVER], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', HOME: work, PYTHONDONTWRITEBYTECODE: '1', PYDEVD_DISABLE_FILE_VALIDATION: '1' },
    })
      .trim()
      .split('\n');
    const stdlib = `/usr/lib/python${version}`;
    const root = path.join(work, 'root');
    mkdirSync(root);
    const sources = [
      PYTHON,
      `/usr/bin/python${version}`,
      '/usr/bin/jupyter',
      '/usr/bin/jupyter-notebook',
      '/bin/bash',
      '/bin/sh',
      '/usr/bin/dash',
      '/usr/share/jupyter',
      ...readdirSync(stdlib)
        .filter((name) => !STDLIB_LEFT_OUT.test(name))
        .map((name) => path.join(stdlib, name)),
      ...readdirSync(DIST)
        .filter((name) => tops.includes(name) || name === 'distutils-precedence.pth' || /\.(dist-info|egg-info)$/.test(name))
        .map((name) => path.join(DIST, name)),
    ];
    // -a keeps the files' times, so the compiled modules in __pycache__ stay valid (the image's root is read-only).
    // Relative to /: cp -a --parents of absolute names looks for their parents in the working directory (coreutils 9.1).
    const fromRoot = (files: Iterable<string>) => [...files].map((file) => file.slice(1));
    execFileSync('cp', ['-a', '--parents', ...fromRoot(sources), root], { cwd: '/' });
    const libraries = new Set<string>();
    const programs = [`/usr/bin/python${version}`, '/bin/bash', '/usr/bin/dash', ...sharedObjects(root)];
    for (let i = 0; i < programs.length; i += 200) for (const library of librariesOf(programs.slice(i, i + 200))) libraries.add(library);
    execFileSync('cp', ['-L', '--parents', ...fromRoot([...libraries].filter((l) => !l.startsWith(`${root}/`))), root], { cwd: '/' });
    for (const mountPoint of ['proc', 'dev', 'tmp']) mkdirSync(path.join(root, mountPoint), { recursive: true });
    mkdirSync(path.join(root, 'etc'), { recursive: true });
    writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n');
    writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');

    const lab = path.join(work, 'lab');
    const site = path.join(lab, `usr/local/lib/python${version}/dist-packages`);
    mkdirSync(site, { recursive: true });
    writeFileSync(path.join(site, 'lab_only_lib.py'), "WHERE = 'the lab image'\n\ndef hello():\n    return 'hello from lab_only_lib'\n");

    const built = path.join(work, 'layout');
    const umoci = (...args: string[]) => execFileSync('umoci', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    umoci('init', '--layout', built);
    umoci('new', '--image', `${built}:empty`);
    umoci('insert', '--rootless', '--image', `${built}:empty`, '--tag', 'jupyter', root, '/');
    umoci('insert', '--rootless', '--image', `${built}:jupyter`, '--tag', tag, lab, '/');
    umoci(
      'config',
      '--image',
      `${built}:${tag}`,
      '--clear=config.env',
      '--config.env',
      'PATH=/usr/local/bin:/usr/bin:/bin',
      '--config.env',
      'LAB_IMAGE=1',
    );
    writeFileSync(path.join(work, 'done'), '');
    rmSync(root, { recursive: true, force: true });
    rmSync(lab, { recursive: true, force: true });
    try {
      renameSync(work, dir);
    } catch (error) {
      // Another test process built it meanwhile: use theirs.
      if (!existsSync(path.join(dir, 'done'))) throw error;
      rmSync(work, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
  return { layout, tag, ms: Date.now() - started, built: true };
}

/** The compiled modules (.so) under a tree. */
function sharedObjects(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sharedObjects(full));
    else if (entry.isFile() && /\.so(\.|$)/.test(entry.name)) out.push(full);
  }
  return out;
}

/** The shared libraries that programs and modules load, as ldd lists them (`name => /path (addr)` or `/path (addr)`). */
function librariesOf(files: string[]): string[] {
  let out: string;
  try {
    out = execFileSync('ldd', files, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    // ldd exits 1 when one of them is not dynamic; what it printed for the others still counts.
    out = String((error as { stdout?: string }).stdout ?? '');
  }
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
}
