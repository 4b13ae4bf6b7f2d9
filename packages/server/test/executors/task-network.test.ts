// task-network.ts: the pieces of the outbound network that are plain values (the live network is
// tested in sandbox.test.ts, hostile/network.test.ts and on Slurm).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BLOCKED_IPV4, hostAddressWords, outboundUnavailable, TASK_RULES, taskRules } from '../../src/executors/sandbox/task-network.js';
import { forwardSocketOf } from '../../src/executors/sandbox/slirp-api.js';

describe('task network', () => {
  it('rejects loopback, private, shared, link-local (metadata) and multicast ranges, and lets DNS reach slirp4netns', () => {
    for (const range of ['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10', '224.0.0.0/3'])
      assert.ok(BLOCKED_IPV4.includes(range), range);
    assert.match(TASK_RULES, /ip daddr 10\.0\.2\.3 meta l4proto \{ tcp, udp \} th dport 53 accept\n.*reject/);
  });

  it('a forwarded port: replies of connections from outside are accepted first; closed, nothing else leaves', () => {
    assert.doesNotMatch(TASK_RULES, /ct state/);
    const forwarded = taskRules({ forwarded: true });
    assert.match(forwarded, /oifname "lo" accept\n    ct state established,related accept\n    ip daddr 10\.0\.2\.3 /);
    const closed = taskRules({ closed: true });
    assert.match(closed, /ct state established,related accept\n    reject\n/);
  });

  it("a forward's API socket is refused where the data directory's path is too long for a Unix socket", () => {
    assert.equal(forwardSocketOf('/srv/runyard/sandbox-net', 8000), '/srv/runyard/sandbox-net/fwd-8000.sock');
    assert.throws(() => forwardSocketOf(`/${'d'.repeat(100)}/sandbox-net`, 8000), /too long for a Unix socket .* shorter RUNYARD_DATA_DIR/);
  });

  it("names every address of this host in ip's words, for the helper to reject", () => {
    const words = hostAddressWords().split(' ');
    assert.ok(words.includes('127.0.0.1'));
    for (let i = 0; i < words.length; i += 2) assert.match(`${words[i]} ${words[i + 1]}`, /^inet6? [0-9a-f.:]+$/);
  });

  it('a server that is not root: refuses where /dev/net/tun is closed to it, naming the fix', () => {
    const real = process.getuid;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tun-'));
    writeFileSync(path.join(dir, 'open'), '');
    process.getuid = () => 1000;
    try {
      assert.equal(outboundUnavailable(path.join(dir, 'open')), null);
      assert.match(
        outboundUnavailable(path.join(dir, 'missing')) ?? '',
        /is not open to this user .* make it mode 0666 .* RUNYARD_TASK_NETWORK=none or host/,
      );
    } finally {
      process.getuid = real;
    }
  });
});
