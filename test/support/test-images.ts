import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Small images built offline from this host's own programs with umoci (no registry, no network):
 * a base layer with bash, sh, cat, ls, id, sleep and their libraries (ldd) and the mount points
 * /proc, /dev, /tmp, and one layer per image with a tool only that image has
 * (`/usr/local/bin/hello-a` in image a, ...). The images share the base layer, as real images share
 * a distribution's. Image `configured` also has a config as Dockerfiles write it: a user of its own
 * (`app`, 1234:1234, in its /etc/passwd), variables (FOO, and a PATH with /opt/tool/bin first), an
 * entrypoint script that says it ran and execs its arguments, and a WorkingDir. Image `hostile`
 * has what a hostile tenant could push (its /etc/resolv.conf a link to the host's /etc/shadow, a
 * setuid-root program). Building all takes about a second.
 */
export interface TestImages {
  /** The OCI layout: push `<layout>:<tag>` with TestRegistry.push. */
  layout: string;
  /** Tags in the layout: `a`, `b`, `private`, `configured`, `hostile`. */
  tags: readonly string[];
  dir: string;
}

const BASE_PROGRAMS = ['/bin/bash', '/bin/sh', '/bin/cat', '/bin/ls', '/usr/bin/id', '/bin/sleep'];

/** Builds the images into a fresh directory under `parent` (the test's temporary directory). */
export function buildTestImages(parent = os.tmpdir()): TestImages {
  const dir = mkdtempSync(path.join(parent, 'runyard-images-'));
  const layout = path.join(dir, 'layout');
  const umoci = (...args: string[]) => execFileSync('umoci', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  umoci('init', '--layout', layout);
  umoci('new', '--image', `${layout}:empty`);

  const base = path.join(dir, 'base');
  for (const program of BASE_PROGRAMS) for (const file of [program, ...librariesOf(program)]) copyInto(base, file);
  // Mount points a sandbox binds over, as a distribution's image has them.
  for (const mountPoint of ['proc', 'dev', 'tmp']) mkdirSync(path.join(base, mountPoint));
  umoci('insert', '--rootless', '--image', `${layout}:empty`, '--tag', 'base', base, '/');

  const tags = ['a', 'b', 'private'];
  for (const tag of tags) {
    const layer = path.join(dir, `layer-${tag}`);
    mkdirSync(path.join(layer, 'usr/local/bin'), { recursive: true });
    const tool = path.join(layer, `usr/local/bin/hello-${tag}`);
    writeFileSync(tool, `#!/bin/sh\necho "hello from image ${tag}"\n`);
    chmodSync(tool, 0o755);
    umoci('insert', '--rootless', '--image', `${layout}:base`, '--tag', tag, layer, '/');
  }

  const configured = path.join(dir, 'layer-configured');
  mkdirSync(path.join(configured, 'etc'), { recursive: true });
  mkdirSync(path.join(configured, 'opt/tool/bin'), { recursive: true });
  mkdirSync(path.join(configured, 'srv'));
  writeFileSync(path.join(configured, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\napp:x:1234:1234::/srv:/bin/sh\n');
  writeFileSync(path.join(configured, 'etc/group'), 'root:x:0:\napp:x:1234:\n');
  const script = (file: string, text: string) => {
    writeFileSync(path.join(configured, file), text);
    chmodSync(path.join(configured, file), 0o755);
  };
  script('entry.sh', '#!/bin/sh\necho "entrypoint ran with: $*" >&2\nexec "$@"\n');
  script('opt/tool/bin/tool-on-image-path', '#!/bin/sh\necho "tool on the image PATH"\n');
  umoci('insert', '--rootless', '--image', `${layout}:base`, '--tag', 'configured', configured, '/');
  // --clear first: umoci keeps the base config's values (its PATH) otherwise.
  umoci(
    'config',
    '--image',
    `${layout}:configured`,
    '--config.user',
    'app',
    '--clear=config.env',
    '--config.env',
    'FOO=from-image',
    '--config.env',
    'PATH=/opt/tool/bin:/usr/local/bin:/usr/bin:/bin',
    '--config.entrypoint',
    '/entry.sh',
    '--config.workingdir',
    '/srv',
  );
  tags.push('configured');

  // What a hostile tenant could push: its resolv.conf a link to the host's /etc/shadow, a setuid-root program.
  const hostile = path.join(dir, 'layer-hostile');
  mkdirSync(path.join(hostile, 'etc'), { recursive: true });
  mkdirSync(path.join(hostile, 'usr/local/bin'), { recursive: true });
  symlinkSync('/etc/shadow', path.join(hostile, 'etc/resolv.conf'));
  copyFileSync('/usr/bin/id', path.join(hostile, 'usr/local/bin/id-suid'));
  chmodSync(path.join(hostile, 'usr/local/bin/id-suid'), 0o4755);
  umoci('insert', '--rootless', '--image', `${layout}:base`, '--tag', 'hostile', hostile, '/');
  tags.push('hostile');
  return { layout, tags, dir };
}

/** The shared libraries a program loads, as ldd lists them (`name => /path (addr)` or `/path (addr)`). */
function librariesOf(program: string): string[] {
  const out = execFileSync('ldd', [program], { encoding: 'utf8' });
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]);
}

/** Copies a host file to the same path under root, following links (the image holds the file itself). */
function copyInto(root: string, file: string): void {
  const target = path.join(root, file);
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(file, target);
  chmodSync(target, 0o755);
}
