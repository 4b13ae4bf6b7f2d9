import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imageArgvOnNode, NODE_PATH, splitImageEnv } from '../../src/executors/slurm/image-on-node.js';
import { ENTER_IN_SANDBOX } from '../../src/executors/sandbox/image-root.js';

const task = { argv: ['bash'], env: {}, cwd: '/w', logFile: '/l', image: { name: 'reg/t/a:1' } };

describe("an image task's sandbox on a Slurm node", () => {
  it("keeps what would steer the node's programs (an image's LD_PRELOAD, BASH_ENV, functions, PATH) for the sandbox only", () => {
    const { host, inSandbox } = splitImageEnv({
      PATH: '/opt/evil:/usr/bin',
      LD_PRELOAD: '/w/evil.so',
      LD_LIBRARY_PATH: '/w',
      BASH_ENV: '/w/rc',
      'BASH_FUNC_rm%%': '() { id; }',
      SHELLOPTS: 'xtrace',
      PS4: '$(id)',
      TMPDIR: '/w',
      GCONV_PATH: '/w',
      FOO: 'bar',
      RUNYARD_PARAM_X: 'secret value',
    });
    assert.deepEqual(host, { FOO: 'bar', RUNYARD_PARAM_X: 'secret value', PATH: NODE_PATH });
    assert.deepEqual(Object.keys(inSandbox).sort(), [
      'BASH_ENV',
      'BASH_FUNC_rm%%',
      'GCONV_PATH',
      'LD_LIBRARY_PATH',
      'LD_PRELOAD',
      'PATH',
      'PS4',
      'SHELLOPTS',
      'TMPDIR',
    ]);
    assert.equal(inSandbox.PATH, '/opt/evil:/usr/bin');
  });

  it("binds runyard-enter from the attempt's copy and has bwrap set the task's own values, after its start", () => {
    const argv = ['/bin/sh', '-c', 'launch', '/usr/bin/env', '--ignore-signal=TERM,INT,HUP', '/usr/bin/bwrap', '--unshare-pid'];
    argv.push('--ro-bind', '/opt/runyard/native/build/runyard-enter', ENTER_IN_SANDBOX, '--', ENTER_IN_SANDBOX, '--', 'bash');
    const out = imageArgvOnNode(argv, task, '/shared/run/j/attempt-1.enter', { PATH: '/opt/tool/bin', LD_PRELOAD: '/x.so' });
    assert.deepEqual(out, [
      '/bin/sh',
      '-c',
      'launch',
      '/usr/bin/env',
      '--ignore-signal=TERM,INT,HUP',
      '/usr/bin/bwrap',
      '--setenv',
      'PATH',
      '/opt/tool/bin',
      '--setenv',
      'LD_PRELOAD',
      '/x.so',
      '--unshare-pid',
      '--ro-bind',
      '/shared/run/j/attempt-1.enter',
      ENTER_IN_SANDBOX,
      '--',
      ENTER_IN_SANDBOX,
      '--',
      'bash',
    ]);
  });

  it('refuses a sandbox it cannot read so', () => {
    assert.throws(() => imageArgvOnNode(['/usr/bin/bwrap', '--', 'bash'], task, '/e', {}), /has no runyard-enter for a Slurm node/);
  });
});
