import { accessSync, constants } from 'node:fs';
import os from 'node:os';
import { findOnPath } from '../find-executable.js';

/*
 * How a sandboxed task reaches the network:
 * - outbound (the default): a network namespace of its own, connected to the internet through
 *   slirp4netns (user-mode networking: the task's packets become the server's own sockets), with
 *   the host's loopback, the private, shared, link-local (cloud metadata) and multicast ranges and
 *   the host's own addresses unreachable (an nftables filter in the task's namespace, loaded before
 *   the task starts, which the task, having no capabilities, cannot change);
 * - none: only a loopback of its own;
 * - host: the host's network, every service on its loopback included (an operator's explicit
 *   choice; the server warns at every start while it is in use).
 */

/** The programs that give a task its outbound network, by absolute path. */
export interface OutboundTools {
  slirp4netns: string;
  unshare: string;
  nsenter: string;
  mkfifo: string;
  nft: string;
  ip: string;
}

/** Where each program comes from, for the message when one is missing. */
const PACKAGES: Record<keyof OutboundTools, string> = {
  slirp4netns: 'slirp4netns',
  unshare: 'util-linux',
  nsenter: 'util-linux',
  mkfifo: 'coreutils',
  nft: 'nftables',
  ip: 'iproute2',
};

/** The tools on the task PATH, or the message that names what is missing and the way out. */
export function findOutboundTools(taskPath: string): OutboundTools | string {
  const found: Partial<OutboundTools> = {};
  const missing: string[] = [];
  for (const name of Object.keys(PACKAGES) as (keyof OutboundTools)[]) {
    const at = findOnPath(name, taskPath) ?? findOnPath(name, '/usr/sbin:/sbin');
    if (at) found[name] = at;
    else missing.push(`${name} (${PACKAGES[name]})`);
  }
  if (!missing.length) return found as OutboundTools;
  return (
    `RUNYARD_TASK_NETWORK=outbound, but ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not on the task PATH: ` +
    'install them, or set RUNYARD_TASK_NETWORK=none (no network) or host (the host network, its loopback services included).'
  );
}

/**
 * Why a server that is not root cannot give its tasks an outbound network (slirp4netns opens
 * /dev/net/tun as its user), or null. Root opens it whatever its mode.
 */
export function outboundUnavailable(tun = '/dev/net/tun'): string | null {
  if (process.getuid?.() === 0) return null;
  try {
    accessSync(tun, constants.R_OK | constants.W_OK);
    return null;
  } catch {
    return (
      `RUNYARD_TASK_NETWORK=outbound, but ${tun} is not open to this user (slirp4netns needs it to connect the tasks' ` +
      'network): make it mode 0666 (its usual mode), run the server as root, or set RUNYARD_TASK_NETWORK=none or host.'
    );
  }
}

/** slirp4netns's resolver inside the task's namespace (it forwards to the host's). */
export const TASK_DNS = '10.0.2.3';

/** Destinations a task's outbound network never reaches: loopback, private, shared, link-local (metadata), multicast and reserved. */
export const BLOCKED_IPV4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '224.0.0.0/3',
];
export const BLOCKED_IPV6 = ['::/127', '::ffff:0:0/96', 'fc00::/7', 'fe80::/10', 'ff00::/8'];

/** The nftables rules of a task's namespace, before the host's own addresses (added by the helper, which knows the host it runs on). */
export const TASK_RULES = taskRules();

/**
 * The rules for a task's namespace. forwarded: the server reaches a port of the task through
 * slirp4netns (add_hostfwd), whose connections come from its gateway, 10.0.2.2: their replies are
 * accepted as part of a connection the other side opened (what the task opens itself is new, and
 * still refused). closed: nothing but those replies and the namespace's own loopback leaves it (a
 * task of a `none` network whose port the server must reach).
 */
export function taskRules(options: { forwarded?: boolean; closed?: boolean } = {}): string {
  return [
    'table inet runyard {',
    '  chain output {',
    '    type filter hook output priority 0; policy accept;',
    '    oifname "lo" accept',
    ...(options.forwarded || options.closed ? ['    ct state established,related accept'] : []),
    ...(options.closed ? ['    reject'] : []),
    `    ip daddr ${TASK_DNS} meta l4proto { tcp, udp } th dport 53 accept`,
    `    ip daddr { ${BLOCKED_IPV4.join(', ')} } reject`,
    `    ip6 daddr { ${BLOCKED_IPV6.join(', ')} } reject`,
  ].join('\n');
}

/**
 * The helper, run in the background by the launcher (below) with the FIFOs' base name, the pid that
 * becomes the sandbox, the server's uid, slirp4netns and (for a task whose port the server reaches)
 * the path of slirp4netns's API socket. The launcher's pid execs unshare, which gives it a network
 * namespace of its own (and, for a server that is not root, a user namespace that owns it), then a
 * shell that tells the helper so on the .i FIFO, loads the filter (NETWORK_NAMESPACE_SCRIPT) and
 * waits on the .g FIFO before it execs bwrap. Meanwhile the helper becomes slirp4netns, which
 * writes to .g once the namespace is connected (the task starts then) and ends when the sandbox
 * does (its --exit-fd is the .x FIFO, whose only writers are bwrap and the task). Where
 * /dev/net/tun is closed to it, the task still starts, with no network (.g reads end of file once
 * the helper is gone) and a line in its log that says why.
 */
export const NETWORK_HELPER_SCRIPT = [
  'f=$1 p=$2 uid=$3 slirp=$4 api=$5 keep=$6',
  'exec 7<"$f.x" 4<"$f.i"',
  'read -r x <&4',
  'exec 4<&- 5>"$f.g"',
  // A pool's namespace keeps its exit FIFO: each task that joins it holds it open too (network-pool.ts).
  'if [ -n "$keep" ]; then rm -f "$f.i" "$f.g"; else rm -f "$f.i" "$f.g" "$f.x"; fi',
  // slirp4netns's own sandbox (a mount namespace with /etc and /run only) needs root: without it, its seccomp filter still holds.
  'if [ "$uid" = 0 ]; then user= box=--enable-sandbox; else user="--userns-path=/proc/$p/ns/user" box=; fi',
  // slirp4netns opens /dev/net/tun as this user: where it is closed to it, the task is told rather than left unconnected.
  'if [ ! -r /dev/net/tun ] || [ ! -w /dev/net/tun ]; then',
  "  printf 'Runyard: /dev/net/tun is closed to the server\\047s user: this task runs without a network.\\n' >&2",
  '  exit 0',
  'fi',
  // A port the server reaches (forwardPort): slirp4netns's API socket, where the server asks for the forward.
  'if [ -n "$api" ]; then rm -f "$api"; set -- --api-socket "$api"; else set --; fi',
  'exec "$slirp" --configure --mtu=65520 --disable-host-loopback $box --enable-seccomp "$@" --ready-fd=5 --exit-fd=7 $user --netns-type=path "/proc/$p/ns/net" tap0 >/dev/null 2>&1',
].join('\n');

/**
 * The shell in the task's new namespace (root there: the namespace is its own): tells the helper the
 * namespace exists, loads the filter itself while slirp4netns starts (no process enters the
 * namespace from outside for it), waits until the namespace is connected and execs bwrap. A filter
 * that cannot be loaded stops the task: it never runs with a network that is not filtered.
 */
const NETWORK_NAMESPACE_SCRIPT = [
  'printf x >"$1"',
  'if ! printf "$4\\n  }\\n}\\n" | "$3" -f - 2>&1 >/dev/null; then',
  "  printf 'Runyard: the network filter of this task could not be loaded (nftables): it was not started.\\n' >&2",
  '  exit 125',
  'fi',
  'read -r x <"$2"',
  'shift 5',
  'exec "$@"',
].join('\n');

/**
 * The launcher, between the wrapper and bwrap: makes the three FIFOs (in the server's folder for
 * them, else $TMPDIR on a cluster's node), adds a reject of each of the host's own addresses to the
 * rules (slirp's sockets are the host's, and a service that listens on all of them must not be
 * reached through one: the addresses as the server saw them, or on a cluster's node as ip shows
 * them), starts the helper, and execs unshare, then the namespace's shell (both keep the pid, which
 * the helper was given), which execs bwrap with the exit FIFO on fd 7 and the namespace's
 * resolv.conf on fd 8 (--ro-bind-data). Its text is a constant; everything reaches it as positional
 * parameters.
 */
export const NETWORK_LAUNCH_SCRIPT = [
  'h=$1 d=${2:-${TMPDIR:-/tmp}} unshare=$3 mkfifo=$4 ns=$5 slirp=$6 nft=$7 ip=$8 rules=$9 addrs=${10} api=${11} keep=${12}',
  'shift 12',
  'f=$d/runyard-net-$$',
  // Left by a killed task of an earlier process with this pid: removed, then made again (rm costs a process only then).
  'if ! "$mkfifo" -m 600 "$f.i" "$f.g" "$f.x" 2>/dev/null; then',
  '  rm -f "$f.i" "$f.g" "$f.x"',
  '  if ! "$mkfifo" -m 600 "$f.i" "$f.g" "$f.x"; then printf \'Runyard: the task network could not be set up in %s.\\n\' "$d" >&2; exit 125; fi',
  'fi',
  // Root or not (the server's user, read without a process), for the launcher and the helper alike.
  'uid=',
  'while read -r k v rest; do if [ "$k" = Uid: ]; then uid=$v; break; fi; done </proc/self/status',
  'set -f',
  '[ -n "$addrs" ] || addrs=$("$ip" -o addr show 2>/dev/null)',
  'w0=',
  'for w in $addrs; do',
  '  case $w0 in inet) rules="$rules\\n    ip daddr ${w%/*} reject" ;; inet6) rules="$rules\\n    ip6 daddr ${w%/*} reject" ;; esac',
  '  w0=$w',
  'done',
  '/bin/sh -c "$h" runyard-net "$f" "$$" "$uid" "$slirp" "$api" "$keep" &',
  'if [ "$uid" = 0 ]; then u=; else u="--user --map-root-user"; fi',
  // The helper's pid ($!) is slirp4netns's once it is ready: a pool's namespace reports it (network-pool.ts).
  `exec "$unshare" --net $u -- /bin/sh -c "$ns" runyard-netns "$f.i" "$f.g" "$nft" "$rules" "$!" "$@" 7>"$f.x" 8<<EOF\nnameserver ${TASK_DNS}\nEOF`,
].join('\n');

/** bwrap's options for a task with an outbound network (after its /etc, so that resolv.conf is mounted over it). */
export const OUTBOUND_BWRAP_OPTIONS = ['--perms', '0644', '--ro-bind-data', '8', '/etc/resolv.conf'];

/** This host's addresses, in the words of `ip -o addr` that the helper reads ("inet A inet6 B ..."). */
export function hostAddressWords(): string {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a !== undefined)
    .map((a) => `${a.family === 'IPv6' ? 'inet6' : 'inet'} ${a.address.replace(/%.*$/, '')}`)
    .join(' ');
}

/**
 * The argv before bwrap's (its options included OUTBOUND_BWRAP_OPTIONS) for a task with an outbound
 * network. fifoDir: a folder of the server's that no task sees; '' on a cluster's node ($TMPDIR).
 */
export function outboundLauncher(
  tools: OutboundTools,
  fifoDir: string,
  hostAddresses = '',
  forward: { apiSocket: string; closed: boolean } | null = null,
): string[] {
  return [
    '/bin/sh',
    '-c',
    NETWORK_LAUNCH_SCRIPT,
    'runyard-net-launch',
    NETWORK_HELPER_SCRIPT,
    fifoDir,
    tools.unshare,
    tools.mkfifo,
    NETWORK_NAMESPACE_SCRIPT,
    tools.slirp4netns,
    tools.nft,
    tools.ip,
    forward ? taskRules({ forwarded: true, closed: forward.closed }) : TASK_RULES,
    hostAddresses,
    forward?.apiSocket ?? '',
    '',
  ];
}
