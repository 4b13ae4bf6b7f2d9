// The argv that confines a task (executors/sandbox/bwrap.ts), read option by option as bwrap reads it:
// which namespaces, which binds read-only and which writable, what runs the task, and what it is never given.
import assert from 'node:assert/strict';
import fs, { existsSync, lstatSync, mkdtempSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { TaskSpec } from '../../src/executors/executor.js';
import { bwrapArgv, bwrapStatusArgv, ETC_ENTRIES, heldInputs, TASK_ID } from '../../src/executors/sandbox/bwrap.js';
import { OUTBOUND_BWRAP_OPTIONS } from '../../src/executors/sandbox/task-network.js';
import { INHERITED_FD_BASE } from '../../src/executors/spawner/spawner-messages.js';

const BWRAP = '/usr/bin/bwrap';
const HOST = { network: 'host' as const, launcher: null };
const NONE = { network: 'none' as const, launcher: null };
const LAUNCHER = ['/usr/libexec/runyard-net', '--fifo', '/run/x'];
const OUTBOUND = { network: 'outbound' as const, launcher: LAUNCHER };
const STOP = 'TERM,INT,HUP';

/** How many arguments each bwrap option takes (bwrap(1)); the others are flags. */
const ARITY: Record<string, number> = {
  '--uid': 1,
  '--gid': 1,
  '--perms': 1,
  '--dir': 1,
  '--tmpfs': 1,
  '--proc': 1,
  '--dev': 1,
  '--remount-ro': 1,
  '--chdir': 1,
  '--json-status-fd': 1,
  '--ro-bind': 2,
  '--ro-bind-try': 2,
  '--bind': 2,
  '--symlink': 2,
  '--ro-bind-fd': 2,
  '--ro-bind-data': 2,
  '--cap-drop': 1,
  '--setenv': 2,
};

/** bwrap's command line from its program on: each option with its arguments, and the command after `--`. */
function parse(argv: string[], program = BWRAP): { options: string[][]; command: string[] } {
  let i = argv.indexOf(program);
  assert.ok(i >= 0, `no ${program} in ${argv.join(' ')}`);
  const options: string[][] = [];
  for (i++; argv[i] !== '--';) {
    assert.ok(i < argv.length, `no -- in ${argv.join(' ')}`);
    const n = ARITY[argv[i]!] ?? 0;
    options.push(argv.slice(i, i + 1 + n));
    i += 1 + n;
  }
  return { options, command: argv.slice(i + 1) };
}

const text = (options: string[][]) => options.map((o) => o.join(' '));
const has = (options: string[][], ...option: string[]) => text(options).includes(option.join(' '));
const indexOf = (options: string[][], ...option: string[]) => text(options).indexOf(option.join(' '));
// With a message always: assert.ok without one reads the test's source to make one, which can take minutes.
const present = (options: string[][], ...option: string[]) =>
  assert.ok(has(options, ...option), `no ${option.join(' ')} in ${text(options).join(' | ')}`);
const absent = (options: string[][], ...option: string[]) =>
  assert.ok(!has(options, ...option), `${option.join(' ')} in ${text(options).join(' | ')}`);

function task(overrides: Partial<TaskSpec> = {}): TaskSpec {
  return {
    argv: ['sh', '-c', 'echo hi'],
    env: { PATH: '/usr/bin:/bin' },
    cwd: '/srv/job/work',
    logFile: '/srv/job/logs/log',
    ...overrides,
  };
}

/** This host's /bin, /lib...: a link into /usr is made as the same link, a directory is bound read-only, a missing one left out. */
function hostSystem(): string[][] {
  return ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'].flatMap((name) => {
    const top = `/${name}`;
    if (!existsSync(top) && !isLink(top)) return [];
    return isLink(top) ? [['--symlink', readlinkSync(top), top]] : [['--ro-bind', top, top]];
  });
}
function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

const etcEntries = ETC_ENTRIES.map((e) => ['--ro-bind-try', `/etc/${e}`, `/etc/${e}`]);
/** Nobody in a user namespace of its own, which cannot make another. */
const OWN_USER = [['--unshare-user'], ['--uid', String(TASK_ID)], ['--gid', String(TASK_ID)], ['--disable-userns']];
/** Its own processes, IPC, host name and cgroup view. */
const NAMESPACES = [['--unshare-pid'], ['--unshare-ipc'], ['--unshare-uts'], ['--unshare-cgroup-try']];

describe('bwrap argv: the confinement of a task, option by option', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-argv-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('a task of a server that is not root: the whole argv, from the signals it ignores to the program it runs', () => {
    const t = task({ writable: ['/srv/job/results'], readable: ['/srv/in/a.txt'] });
    const argv = bwrapArgv(BWRAP, t, HOST);
    assert.deepEqual(argv.slice(0, 3), ['/usr/bin/env', `--ignore-signal=${STOP}`, BWRAP]);
    const { options, command } = parse(argv);
    assert.deepEqual(options, [
      ['--die-with-parent'],
      ...OWN_USER,
      ...NAMESPACES,
      ['--ro-bind', '/usr', '/usr'],
      ...hostSystem(),
      ...etcEntries,
      ['--proc', '/proc'],
      ['--dev', '/dev'],
      ['--perms', '1777'],
      ['--tmpfs', '/tmp'],
      ['--perms', '1777'],
      ['--tmpfs', '/var/tmp'],
      ['--ro-bind-try', '/srv/in/a.txt', '/srv/in/a.txt'],
      ['--bind', '/srv/job/work', '/srv/job/work'],
      ['--bind', '/srv/job/results', '/srv/job/results'],
      ['--remount-ro', '/'],
      ['--chdir', '/srv/job/work'],
    ]);
    assert.equal(TASK_ID, 65534);
    assert.deepEqual(command, ['/usr/bin/env', `--default-signal=${STOP}`, '--', 'sh', '-c', 'echo hi']);
  });

  it('the network: its own loopback only with none, the host with host, an outbound namespace started by its launcher', () => {
    const none = parse(bwrapArgv(BWRAP, task(), NONE)).options;
    assert.equal(text(none).filter((o) => o === '--unshare-net').length, 1);
    const host = parse(bwrapArgv(BWRAP, task(), HOST)).options;
    absent(host, '--unshare-net');
    assert.deepEqual(
      host.filter((o) => o.includes('/etc/resolv.conf')),
      [['--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf']],
    );

    const outboundArgv = bwrapArgv(BWRAP, task(), OUTBOUND);
    // The launcher starts env (which ignores the stop signals), which starts bwrap in the launcher's namespace.
    assert.deepEqual(outboundArgv.slice(0, LAUNCHER.length + 3), [...LAUNCHER, '/usr/bin/env', `--ignore-signal=${STOP}`, BWRAP]);
    const outbound = parse(outboundArgv).options;
    absent(outbound, '--unshare-net'); // the launcher gives it its network namespace
    // Its resolv.conf (slirp4netns's resolver, from fd 8) is mounted over the host's, so after it.
    const data = indexOf(outbound, ...OUTBOUND_BWRAP_OPTIONS.slice(2));
    assert.deepEqual(OUTBOUND_BWRAP_OPTIONS, ['--perms', '0644', '--ro-bind-data', '8', '/etc/resolv.conf']);
    assert.ok(data > indexOf(outbound, '--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf'), text(outbound).join(' | '));
    assert.deepEqual(outbound[data - 1], ['--perms', '0644']);
    assert.throws(() => bwrapArgv(BWRAP, task(), { network: 'outbound', launcher: null }), /needs its launcher/);
    assert.throws(() => bwrapStatusArgv(BWRAP, task(), { network: 'outbound', launcher: null }, 3), /needs its launcher/);
  });

  it('a task of a root server runs as its host user: no user namespace, setpriv drops everything before the program', () => {
    const user = { uid: 1001, gid: 1002 };
    const t = task({ cwd: '/srv/job/work', writable: ['/srv/job/results/'], readable: ['/data/in/reads.fq'] });
    const { options, command } = parse(bwrapArgv(BWRAP, t, HOST, user));
    assert.deepEqual(options.slice(0, 6), [['--die-with-parent'], ...NAMESPACES, ['--ro-bind', '/usr', '/usr']]);
    for (const flag of ['--unshare-user', '--uid', '--gid', '--disable-userns']) assert.ok(!options.some((o) => o[0] === flag), flag);
    assert.deepEqual(command, [
      '/usr/bin/setpriv',
      '--reuid=1001',
      '--regid=1002',
      '--clear-groups',
      '--bounding-set=-all',
      '--inh-caps=-all',
      '--no-new-privs',
      '--',
      '/usr/bin/env',
      `--default-signal=${STOP}`,
      '--',
      'sh',
      '-c',
      'echo hi',
    ]);
    // The folders above its binds are made 0755 (bwrap as root makes them 0700, closed to the task), parents first, each once.
    const firstBind = options.findIndex((o) => o[0] === '--ro-bind-try' && o[1] === '/data/in/reads.fq');
    const dirs = options.slice(options.findIndex((o) => o[0] === '--tmpfs' && o[1] === '/var/tmp') + 1, firstBind);
    assert.deepEqual(dirs, [
      ['--perms', '0755'],
      ['--dir', '/data'],
      ['--perms', '0755'],
      ['--dir', '/srv'],
      ['--perms', '0755'],
      ['--dir', '/data/in'],
      ['--perms', '0755'],
      ['--dir', '/srv/job'],
    ]);
    // And above the /etc entries it is given, before they are bound.
    const etcParents = [
      ...new Set(
        ETC_ENTRIES.map((e) => `/etc/${e}`)
          .filter((p) => existsSync(p))
          .flatMap((p) => {
            const above: string[] = [];
            for (let d = path.dirname(p); d !== '/'; d = path.dirname(d)) above.push(d);
            return above;
          }),
      ),
    ].sort((a, b) => a.split('/').length - b.split('/').length);
    assert.equal(etcParents[0], '/etc');
    const etcStart = indexOf(options, '--ro-bind-try', '/etc/passwd', '/etc/passwd');
    assert.deepEqual(
      options.slice(etcStart - 2 * etcParents.length, etcStart),
      etcParents.flatMap((d) => [
        ['--perms', '0755'],
        ['--dir', d],
      ]),
    );
    // No folder is made for a task of a server that is not root.
    assert.deepEqual(
      parse(bwrapArgv(BWRAP, t, HOST)).options.filter((o) => o[0] === '--dir'),
      [],
    );
  });

  it("a task in an image: the image's root, not the host's; its user in the namespace, no capabilities; runyard-enter runs it", () => {
    const rootfs = mkdtempSync(path.join(scratch, 'rootfs-'));
    // srv: a folder of the image on the way to the job's folders (/srv/job/...), made rather than bound.
    for (const dir of ['usr', 'etc', 'opt', 'srv']) fs.mkdirSync(path.join(rootfs, dir));
    const env = { PATH: '/opt/tool/bin:/usr/bin', LD_PRELOAD: '/opt/evil.so' };
    const image = { name: 'r.io/t/a:1', run: { digest: `sha256:${'a'.repeat(64)}`, rootfs, uid: 1234, gid: 2345, env } };
    const t = task({ image, env: { PATH: '/opt/tool/bin:/usr/bin' }, writable: ['/srv/job/results'], readable: ['/srv/in/a.txt'] });
    const { options, command } = parse(bwrapArgv(BWRAP, t, NONE));
    // Its user: the image's, in a user namespace that cannot make another, with every capability dropped (also as its root).
    assert.deepEqual(options.slice(1, 5), [['--unshare-user'], ['--uid', '1234'], ['--gid', '2345'], ['--disable-userns']]);
    present(options, '--uid', '1234');
    present(options, '--gid', '2345');
    assert.deepEqual(options[5], ['--cap-drop', 'ALL']);
    // The image's entries, bound read-only at the root; nothing of the host's system, /etc or PATH folders.
    present(options, '--ro-bind', path.join(rootfs, 'usr'), '/usr');
    present(options, '--ro-bind', path.join(rootfs, 'etc'), '/etc');
    present(options, '--ro-bind', path.join(rootfs, 'opt'), '/opt');
    absent(options, '--ro-bind', '/usr', '/usr');
    assert.ok(!options.some((o) => o[1]?.startsWith('/etc/') && o[0] === '--ro-bind-try'), 'no host /etc entry');
    assert.ok(!options.some((o) => o[1] === '/opt/tool/bin'), 'no PATH folder of the host');
    // runyard-enter, bound read-only, runs the argv (no setpriv, no env of the host).
    const enter = options.find((o) => o[0] === '--ro-bind' && o[2] === '/.runyard/enter');
    assert.ok(enter && enter[1].endsWith('native/build/runyard-enter'), text(options).join(' | '));
    assert.deepEqual(command, ['/.runyard/enter', '--', 'sh', '-c', 'echo hi']);
    // The image's /srv is on the way to the job's folders: made, not bound (the binds land on the sandbox's folder).
    present(options, '--dir', '/srv');
    absent(options, '--ro-bind', path.join(rootfs, 'srv'), '/srv');
    // Nothing bound from the host but the job's own paths and runyard-enter (no folder of its PATH: the image has its own).
    const hostBinds = options.filter((o) => ['--bind', '--ro-bind-try'].includes(o[0])).map((o) => o[1]);
    assert.deepEqual(hostBinds.sort(), ['/srv/in/a.txt', '/srv/job/results', '/srv/job/work']);
    // Its own binds and the rest of the sandbox as for any task, then the root made read-only.
    present(options, '--bind', '/srv/job/work', '/srv/job/work');
    present(options, '--bind', '/srv/job/results', '/srv/job/results');
    present(options, '--ro-bind-try', '/srv/in/a.txt', '/srv/in/a.txt');
    present(options, '--tmpfs', '/tmp');
    // The image's variables: set by bwrap in the sandbox only, after everything else (never in the env of what runs before it).
    assert.deepEqual(options.slice(-4), [
      ['--remount-ro', '/'],
      ['--chdir', '/srv/job/work'],
      ['--setenv', 'PATH', '/opt/tool/bin:/usr/bin'],
      ['--setenv', 'LD_PRELOAD', '/opt/evil.so'],
    ]);
    // Root of the image when it names no user.
    const root = parse(bwrapArgv(BWRAP, task({ image: { ...image, run: { ...image.run, uid: null, gid: null } } }), NONE)).options;
    present(root, '--uid', '0');
    present(root, '--gid', '0');
    // A root server: no user namespace; runyard-enter drops to the host user.
    const asHost = parse(bwrapArgv(BWRAP, t, NONE, { uid: 1001, gid: 1002 }));
    absent(asHost.options, '--unshare-user');
    assert.deepEqual(asHost.command, ['/.runyard/enter', '--uid', '1001', '--gid', '1002', '--', 'sh', '-c', 'echo hi']);
    // On the host's network the host's name resolution is bound over the image's; on its own none is.
    const host = parse(bwrapArgv(BWRAP, t, HOST)).options;
    present(host, '--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf');
    present(host, '--ro-bind-try', '/etc/hosts', '/etc/hosts');
    absent(options, '--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf');
    // An image that was not pulled is never run on the host's root instead.
    assert.throws(() => bwrapArgv(BWRAP, task({ image: { name: 'r.io/t/a:1' } }), NONE), /was not pulled before the task's launch/);
  });

  it('the status argv: bwrap reports on the fd given, and does not die with its parent (the spawner)', () => {
    const argv = bwrapStatusArgv(BWRAP, task(), HOST, 7);
    assert.deepEqual(argv.slice(0, 3), [BWRAP, '--json-status-fd', '7']);
    const { options, command } = parse(argv);
    absent(options, '--die-with-parent');
    assert.deepEqual(options.slice(0, 10), [['--json-status-fd', '7'], ...OWN_USER, ...NAMESPACES, ['--ro-bind', '/usr', '/usr']]);
    // Nothing writable but its working directory when it names nothing else.
    assert.deepEqual(
      options.filter((o) => o[0] === '--bind'),
      [['--bind', '/srv/job/work', '/srv/job/work']],
    );
    assert.deepEqual(command, ['/usr/bin/env', `--default-signal=${STOP}`, '--', 'sh', '-c', 'echo hi']);
    assert.deepEqual(bwrapStatusArgv(BWRAP, task(), OUTBOUND, 9).slice(0, LAUNCHER.length + 3), [
      ...LAUNCHER,
      BWRAP,
      '--json-status-fd',
      '9',
    ]);
    present(parse(bwrapStatusArgv(BWRAP, task(), NONE, 3)).options, '--unshare-net');
  });

  it("/etc as one read-only copy, unless the task binds something under /etc or an outbound task's copy has no resolv.conf", () => {
    const copy = path.join(scratch, 'etc-copy');
    fs.mkdirSync(copy, { recursive: true });
    const etc = { dir: copy, binds: ['/etc/java-17-openjdk'] };
    const withCopy = parse(bwrapStatusArgv(BWRAP, task(), HOST, 3, etc)).options;
    present(withCopy, '--ro-bind', copy, '/etc');
    present(withCopy, '--ro-bind-try', '/etc/java-17-openjdk', '/etc/java-17-openjdk');
    absent(withCopy, '--ro-bind-try', '/etc/passwd', '/etc/passwd'); // each entry is in the copy

    const eachEntry = (options: string[][]) => {
      absent(options, '--ro-bind', copy, '/etc');
      for (const entry of etcEntries) present(options, ...entry);
    };
    eachEntry(parse(bwrapStatusArgv(BWRAP, task({ readable: ['/etc/java-17-openjdk'] }), HOST, 3, etc)).options);
    eachEntry(parse(bwrapStatusArgv(BWRAP, task({ writable: ['/etc'] }), HOST, 3, etc)).options);
    eachEntry(parse(bwrapStatusArgv(BWRAP, task({ cwd: '/etc/app' }), HOST, 3, etc)).options);
    // Not under /etc: the copy stays.
    for (const readable of ['/etcetera/x', '/srv/etc/x']) {
      present(parse(bwrapStatusArgv(BWRAP, task({ readable: [readable] }), HOST, 3, etc)).options, '--ro-bind', copy, '/etc');
    }

    // Outbound: the resolver is mounted over the copy's resolv.conf, which needs one to mount over.
    eachEntry(parse(bwrapStatusArgv(BWRAP, task(), OUTBOUND, 3, etc)).options);
    writeFileSync(path.join(copy, 'resolv.conf'), '');
    const outbound = parse(bwrapStatusArgv(BWRAP, task(), OUTBOUND, 3, etc)).options;
    assert.ok(
      indexOf(outbound, '--ro-bind-data', '8', '/etc/resolv.conf') > indexOf(outbound, '--ro-bind', copy, '/etc'),
      text(outbound).join(' | '),
    );
  });

  it('binds named entries of /etc, each once, never /etc whole nor what holds its secrets', () => {
    const etc = parse(bwrapArgv(BWRAP, task(), HOST))
      .options.filter((o) => o.length === 3 && /^\/etc(\/|$)/.test(o[2]!))
      .map((o) => path.normalize(o[2]!));
    assert.equal(new Set(etc).size, etc.length);
    assert.ok(etc.length >= 20, etc.join(' '));
    for (const dest of etc) {
      assert.match(dest, /^\/etc\/[^/]/, dest);
      for (const secret of [
        '/etc/shadow',
        '/etc/gshadow',
        '/etc/sudoers',
        '/etc/ssh',
        '/etc/ssl/private',
        '/etc/pki/tls/private',
        '/etc/runyard',
      ]) {
        assert.ok(dest !== secret && !dest.startsWith(`${secret}/`) && !secret.startsWith(`${dest}/`), `${dest} shows ${secret}`);
      }
    }
    for (const needed of [
      '/etc/passwd',
      '/etc/group',
      '/etc/resolv.conf',
      '/etc/hosts',
      '/etc/nsswitch.conf',
      '/etc/ssl/certs',
      '/etc/ld.so.cache',
    ]) {
      assert.ok(etc.includes(needed), needed);
    }
  });

  it('refuses a program name that env would read as a variable, or none', () => {
    for (const argv of [[], [''], ['A=B', 'sh'], ['/bin/x=y']]) {
      assert.throws(() => bwrapArgv(BWRAP, task({ argv }), HOST), /Not a program name/, JSON.stringify(argv));
      assert.throws(() => bwrapStatusArgv(BWRAP, task({ argv }), HOST, 3), /Not a program name/, JSON.stringify(argv));
    }
  });

  it(
    "binds the directories of the task's PATH and its program outside /usr read-only, and nothing for the rest",
    { skip: isLink('/bin') && isLink('/sbin') ? false : 'not a merged-/usr system (the next test fakes one that is not)' },
    () => {
      const t = task({
        argv: ['/opt/prog/run', 'x'],
        env: { PATH: '/opt/tools/bin:relative/bin::/:/usr/local/bin:/usr/bin:/usr:/bin:/sbin/x:/usrlocal/bin:/opt/usr/bin' },
      });
      const binds = (argv: string[]) => parse(argv).options.filter((o) => o[0] === '--ro-bind-try' && !o[1]!.startsWith('/etc/'));
      // /bin and /sbin are links into /usr here: what lies under them is in the bound /usr already. Parents first.
      assert.deepEqual(binds(bwrapArgv(BWRAP, t, HOST)), [
        ['--ro-bind-try', '/usrlocal/bin', '/usrlocal/bin'],
        ['--ro-bind-try', '/opt/tools/bin', '/opt/tools/bin'],
        ['--ro-bind-try', '/opt/usr/bin', '/opt/usr/bin'],
        ['--ro-bind-try', '/opt/prog/run', '/opt/prog/run'],
      ]);
      assert.deepEqual(binds(bwrapArgv(BWRAP, task({ argv: ['run'], env: {} }), HOST)), []);
    },
  );

  it('on a host whose /lib64 is a directory and whose /bin links outside /usr, those are bound, and what a PATH names under them', () => {
    // /lib links to /usr itself; /mnt links into /usr but is no system directory the sandbox makes: what is under it is bound.
    const real = { lstatSync: fs.lstatSync, readlinkSync: fs.readlinkSync, existsSync: fs.existsSync };
    const fake = new Map<string, 'dir' | string | null>([
      ['/bin', '/opt/usr/bin'],
      ['/sbin', 'usr/sbin'],
      ['/lib', 'usr'],
      ['/mnt', 'usr/share'],
      ['/lib64', 'dir'],
      ['/lib32', null],
      ['/libx32', null],
    ]);
    const described = (p: string) => typeof p === 'string' && fake.has(p);
    Object.assign(fs, {
      lstatSync: (p: string, ...rest: unknown[]) => {
        if (!described(p)) return (real.lstatSync as (...a: unknown[]) => unknown)(p, ...rest);
        const what = fake.get(p);
        if (what === null) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
        return { isSymbolicLink: () => what !== 'dir', isDirectory: () => what === 'dir' };
      },
      readlinkSync: (p: string, ...rest: unknown[]) =>
        described(p) ? fake.get(p) : (real.readlinkSync as (...a: unknown[]) => unknown)(p, ...rest),
    });
    syncBuiltinESMExports();
    try {
      const t = task({ env: { PATH: '/bin:/sbin/x:/lib/tools:/lib64/tools:/lib32/bin:/mnt/tools:/usr/bin' } });
      const { options } = parse(bwrapArgv(BWRAP, t, HOST));
      const start = indexOf(options, '--ro-bind', '/usr', '/usr');
      assert.deepEqual(options.slice(start, indexOf(options, ...etcEntries[0]!)), [
        ['--ro-bind', '/usr', '/usr'],
        ['--symlink', '/opt/usr/bin', '/bin'],
        ['--symlink', 'usr/sbin', '/sbin'],
        ['--symlink', 'usr', '/lib'],
        ['--ro-bind', '/lib64', '/lib64'],
      ]);
      assert.deepEqual(
        options.filter((o) => o.includes('/lib32') && o[0] !== '--ro-bind-try'),
        [],
      );
      assert.deepEqual(
        options.filter((o) => o[0] === '--ro-bind-try' && !o[1]!.startsWith('/etc/')).map((o) => o[1]),
        ['/bin', '/lib64/tools', '/lib32/bin', '/mnt/tools'],
      );
    } finally {
      Object.assign(fs, real);
      syncBuiltinESMExports();
    }
  });

  it('binds from parents to children, a path named twice the same way once, read-only inside writable staying read-only', () => {
    const t = task({
      cwd: '/srv/job/work',
      writable: ['/srv/job/work/out', '/srv/job/', '/srv/job/work'],
      readable: ['/srv/job/work/in/deep/file', '/srv/job/work/in/deep/file/', '/srv/job/work'],
    });
    const binds = parse(bwrapArgv(BWRAP, t, HOST)).options.filter(
      (o) => (o[0] === '--bind' || o[0] === '--ro-bind-try') && o[1]!.startsWith('/srv'),
    );
    assert.deepEqual(binds, [
      ['--bind', '/srv/job', '/srv/job'],
      ['--ro-bind-try', '/srv/job/work', '/srv/job/work'],
      ['--bind', '/srv/job/work', '/srv/job/work'],
      ['--bind', '/srv/job/work/out', '/srv/job/work/out'],
      ['--ro-bind-try', '/srv/job/work/in/deep/file', '/srv/job/work/in/deep/file'],
    ]);
  });

  it('inputs the server holds open: checked where the task runs, then bound from their fds, in the order of the fds', () => {
    const a = path.join(scratch, 'a.fq');
    const b = path.join(scratch, 'b.fq');
    writeFileSync(a, 'AAAA');
    writeFileSync(b, 'BB');
    const t = task({
      readable: ['/srv/in/b.fq', '/srv/in/a.fq', '/srv/in/plain'],
      writable: ['/srv/in/a.fq'],
      bindSources: { '/srv/in/b.fq/': b, '/srv/in/a.fq': a },
    });
    assert.deepEqual(heldInputs(t), [
      { dest: '/srv/in/a.fq', source: a, fd: INHERITED_FD_BASE },
      { dest: '/srv/in/b.fq', source: b, fd: INHERITED_FD_BASE + 1 },
    ]);
    assert.deepEqual(heldInputs(task()), []);
    const argv = bwrapArgv(BWRAP, t, HOST);
    const [sa, sb] = [statSync(a), statSync(b)];
    const check = argv.slice(0, argv.indexOf('/usr/bin/env'));
    assert.deepEqual(check.slice(0, 2), ['/bin/bash', '-c']);
    assert.deepEqual(check.slice(3), [
      'runyard-inputs',
      '2',
      String(INHERITED_FD_BASE),
      '/srv/in/a.fq',
      `${sa.ino}:${sa.size}`,
      '/srv/in/b.fq',
      `${sb.ino}:${sb.size}`,
    ]);
    const binds = (options: string[][]) => options.filter((o) => o.length === 3 && o[2]!.startsWith('/srv/in'));
    const expected = [
      ['--ro-bind-fd', String(INHERITED_FD_BASE + 1), '/srv/in/b.fq'],
      ['--ro-bind-fd', String(INHERITED_FD_BASE), '/srv/in/a.fq'],
      ['--ro-bind-try', '/srv/in/plain', '/srv/in/plain'],
      // Writable, the same path is bound by its path: fds are for read-only inputs.
      ['--bind', '/srv/in/a.fq', '/srv/in/a.fq'],
    ];
    assert.deepEqual(binds(parse(argv).options), expected);
    assert.deepEqual(binds(parse(bwrapStatusArgv(BWRAP, t, HOST, 3)).options), expected);
    // Without held inputs nothing runs before env.
    assert.equal(bwrapArgv(BWRAP, task(), HOST)[0], '/usr/bin/env');
  });

  it("never puts the task's environment into the argv, where any local user can read it", () => {
    const env = { PATH: '/usr/bin', TOKEN: 'hunter2-secret-value', OTHER: 'x=y' };
    for (const argv of [bwrapArgv(BWRAP, task({ env }), HOST), bwrapStatusArgv(BWRAP, task({ env }), NONE, 3)]) {
      assert.ok(!argv.some((a) => a.includes('hunter2') || a.includes('TOKEN')), argv.join(' '));
      assert.deepEqual(
        argv.filter((a) => ['--setenv', '--unsetenv', '--clearenv'].includes(a)),
        [],
      );
    }
  });
});
