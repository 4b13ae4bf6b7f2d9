import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { describe, it } from 'node:test';
import { listRemoteRefs } from '../../src/git/ls-remote.js';
import {
  DEFAULT_ALLOWED_HOSTS,
  GitUrlError,
  ownerNumericId,
  repositoryNumericId,
  resolveRepositoryUrl,
  type GitPolicy,
} from '../../src/git/url-policy.js';

const policy: GitPolicy = { allowedHosts: [], rewrites: {} };
/** A policy where an operator (wrongly) added IP addresses and internal names: they must still be refused. */
const permissive: GitPolicy = {
  allowedHosts: [
    'git.example.org',
    '127.1',
    '0',
    '127.0.0.1',
    '017700000001',
    '0x7f.0.0.1',
    '2130706433',
    '169.254.169.254',
    '::ffff:7f00:1',
    '[::ffff:7f00:1]',
  ],
  rewrites: {},
};

/** Every T8 input and its relatives; each must be refused by the policy alone. */
const REFUSED: string[] = [
  // T8 list
  'http://127.1/acme/repo',
  'http://0/acme/repo',
  'http://017700000001/acme/repo',
  'http://0x7f.0.0.1/acme/repo',
  'http://2130706433/acme/repo',
  'http://[::ffff:7f00:1]/acme/repo',
  'http://169.254.169.254/latest/meta-data',
  'file:///etc/passwd',
  'file:///tmp/repo',
  'ext::sh -c touch% /tmp/pwned',
  'ext::sh',
  'fd::17',
  // the same hosts over https, which is the scheme we allow
  'https://127.1/acme/repo',
  'https://0/acme/repo',
  'https://017700000001/acme/repo',
  'https://0x7f.0.0.1/acme/repo',
  'https://2130706433/acme/repo',
  'https://[::ffff:7f00:1]/acme/repo',
  'https://[::1]/acme/repo',
  'https://169.254.169.254/acme/repo',
  'https://127.0.0.1/acme/repo',
  'https://10.0.0.1/acme/repo',
  'https://0177.0.0.1/acme/repo',
  'https://127.0.0.1./acme/repo',
  'https://a.b.0x7f/acme/repo',
  // other schemes and address forms
  'http://github.com/acme/repo',
  'ssh://git@github.com/acme/repo.git',
  'git://github.com/acme/repo.git',
  'git@github.com:acme/repo.git',
  'github.com:acme/repo',
  'file:/etc/passwd',
  'https::github.com/acme/repo',
  'github.com/acme/repo',
  '/srv/repo',
  '-uevil',
  '--upload-pack=touch /tmp/pwned',
  'https:/github.com/acme/repo',
  // credentials
  'https://user:token@github.com/acme/repo',
  'https://token@github.com/acme/repo',
  'https://github.com@evil.example/acme/repo',
  // hosts
  'https://evil.example/acme/repo',
  'https://github.com.evil.example/acme/repo',
  'https://evilgithub.com/acme/repo',
  'https://github.com../acme/repo',
  'https://gith%75b.com/acme/repo',
  'https://localhost/acme/repo',
  // ports
  'https://github.com:8443/acme/repo',
  'https://github.com:/acme/repo',
  'https://github.com:0443x/acme/repo',
  // paths
  'https://github.com/',
  'https://github.com',
  'https://github.com/acme',
  'https://github.com/acme/',
  'https://github.com/acme/repo/tree/main',
  'https://github.com/acme/../repo',
  'https://github.com/acme/./repo',
  'https://github.com/../acme/repo',
  'https://github.com/acme/%2e%2e',
  'https://github.com/acme%2frepo/x',
  'https://github.com//acme/repo',
  'https://github.com/acme//repo',
  'https://github.com/-acme/repo',
  'https://github.com/acme/-repo',
  'https://github.com/acme/--upload-pack=x',
  'https://github.com/acme/repo\\..\\x',
  'https://github.com/acme/.git',
  // query strings, fragments, control characters, spaces
  'https://github.com/acme/repo?x=1',
  'https://github.com/acme/repo#main',
  'https://github.com/acme/repo\n',
  'https://github.com/acme/re\u0000po',
  'https://github.com/acme/re\tpo',
  'https://github.com/acme/re po',
  'https://github.com/acme/r\u00e9po',
  '',
  '   ',
  `https://github.com/acme/${'x'.repeat(3000)}`,
];

describe('git URL policy: refusals (T8)', () => {
  it('refuses every SSRF and injection input with GitUrlError, even when the host was added to allowedHosts, without spawning anything', async () => {
    const spawned: string[] = [];
    const real = { spawn: childProcess.spawn, execFile: childProcess.execFile, spawnSync: childProcess.spawnSync };
    const trap =
      (name: string) =>
      (...args: unknown[]) => {
        spawned.push(`${name} ${String(args[0])}`);
        throw new Error('no process may be spawned for a refused URL');
      };
    (childProcess as any).spawn = trap('spawn');
    (childProcess as any).execFile = trap('execFile');
    (childProcess as any).spawnSync = trap('spawnSync');
    syncBuiltinESMExports();
    try {
      for (const input of REFUSED) {
        for (const p of [policy, permissive]) {
          // The import flow: resolve, then read refs. A refusal must stop it before git is reached.
          await assert.rejects(
            async () => listRemoteRefs(resolveRepositoryUrl(input, p)),
            (err: unknown) => {
              assert.ok(err instanceof GitUrlError, `${JSON.stringify(input)}: expected GitUrlError, got ${String(err)}`);
              assert.ok(err.message.length > 10);
              return true;
            },
          );
        }
      }
    } finally {
      Object.assign(childProcess, real);
      syncBuiltinESMExports();
    }
    assert.deepEqual(spawned, []);
  });

  it('never echoes credentials in the message', () => {
    for (const input of ['https://alice:s3cr3t-token@github.com/acme/repo', 'https://s3cr3t-token@github.com/acme/repo']) {
      assert.throws(
        () => resolveRepositoryUrl(input, policy),
        (err: Error) => err instanceof GitUrlError && !err.message.includes('s3cr3t') && /credentials/.test(err.message),
      );
    }
  });

  it('gives messages a person can act on', () => {
    const msg = (input: string, p = policy) => {
      try {
        resolveRepositoryUrl(input, p);
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    assert.match(msg('http://github.com/acme/repo'), /https/);
    assert.match(msg('git@github.com:acme/repo.git'), /https:\/\//);
    assert.match(msg('ext::sh -c x'), /transport/);
    assert.match(msg('https://evil.example/acme/repo'), /not allowed.*github\.com.*administrator/);
    assert.match(msg('https://127.1/acme/repo', permissive), /IP address/);
    assert.match(msg('https://github.com:8443/acme/repo'), /port/);
    assert.match(msg('https://github.com/acme'), /OWNER\/REPO/);
    assert.match(msg('https://github.com/acme/repo?x=1'), /query/);
  });
});

describe('git URL policy: accepted forms', () => {
  it('normalizes GitHub URLs: .git suffix, trailing slash, case of the host, port 443, a trailing dot', () => {
    for (const input of [
      'https://github.com/acme/pipe',
      'https://github.com/acme/pipe.git',
      'https://github.com/acme/pipe/',
      'https://github.com/acme/pipe.git/',
      'HTTPS://GitHub.COM/acme/pipe',
      'https://github.com:443/acme/pipe',
      'https://github.com./acme/pipe',
      '  https://github.com/acme/pipe  ',
    ]) {
      const r = resolveRepositoryUrl(input, policy);
      assert.deepEqual(
        r,
        {
          url: 'https://github.com/acme/pipe',
          fetchUrl: 'https://github.com/acme/pipe.git',
          allowFile: false,
          host: 'github.com',
          ownerPath: 'acme',
          name: 'pipe',
        },
        input,
      );
    }
  });

  it('accepts names with dots, underscores and dashes inside', () => {
    const r = resolveRepositoryUrl('https://github.com/my-org_1/nf-core.rnaseq_v2', policy);
    assert.equal(r.ownerPath, 'my-org_1');
    assert.equal(r.name, 'nf-core.rnaseq_v2');
  });

  it('accepts GitLab subgroups', () => {
    const r = resolveRepositoryUrl('https://gitlab.com/a/b/c/repo.git', policy);
    assert.equal(r.url, 'https://gitlab.com/a/b/c/repo');
    assert.equal(r.ownerPath, 'a/b/c');
    assert.equal(r.name, 'repo');
    assert.equal(r.fetchUrl, 'https://gitlab.com/a/b/c/repo.git');
  });

  it('accepts bitbucket.org', () => {
    const r = resolveRepositoryUrl('https://bitbucket.org/team/repo', policy);
    assert.equal(r.host, 'bitbucket.org');
    assert.equal(r.ownerPath, 'team');
  });

  it('maps Bitbucket Server project URLs to their /scm/ clone URL (wire-api §2.8)', () => {
    const p: GitPolicy = { allowedHosts: ['bitbucket.acme.example'], rewrites: {} };
    for (const input of [
      'https://bitbucket.acme.example/projects/KEY/repos/pipeline',
      'https://bitbucket.acme.example/projects/KEY/repos/pipeline/browse',
      'https://bitbucket.acme.example/projects/KEY/repos/pipeline.git',
    ]) {
      const r = resolveRepositoryUrl(input, p);
      assert.equal(r.ownerPath, 'KEY', input);
      assert.equal(r.name, 'pipeline', input);
      assert.equal(r.url, 'https://bitbucket.acme.example/scm/key/pipeline', input);
      assert.equal(r.fetchUrl, 'https://bitbucket.acme.example/scm/key/pipeline.git', input);
    }
  });

  it('accepts hosts the operator added (case and trailing dot ignored), and the defaults always', () => {
    const p: GitPolicy = { allowedHosts: ['Git.Example.ORG.'], rewrites: {} };
    assert.equal(resolveRepositoryUrl('https://git.example.org/team/repo', p).host, 'git.example.org');
    assert.equal(resolveRepositoryUrl('https://github.com/a/b', p).host, 'github.com');
    assert.deepEqual([...DEFAULT_ALLOWED_HOSTS].sort(), ['bitbucket.org', 'github.com', 'gitlab.com']);
  });
});

describe('git URL policy: rewrites', () => {
  it('applies the longest matching prefix; a file: target sets allowFile', () => {
    const p: GitPolicy = {
      allowedHosts: ['mirror.example.org'],
      rewrites: {
        'https://github.com/': 'file:///srv/mirror/',
        'https://github.com/acme/': 'https://mirror.example.org/acme-mirror/',
        'https://GITLAB.com/': 'file:///srv/gitlab/',
      },
    };
    const a = resolveRepositoryUrl('https://github.com/other/repo.git', p);
    assert.equal(a.url, 'https://github.com/other/repo');
    assert.equal(a.fetchUrl, 'file:///srv/mirror/other/repo');
    assert.equal(a.allowFile, true);

    const b = resolveRepositoryUrl('https://github.com/acme/repo', p);
    assert.equal(b.url, 'https://github.com/acme/repo');
    assert.equal(b.fetchUrl, 'https://mirror.example.org/acme-mirror/repo.git');
    assert.equal(b.allowFile, false);

    assert.equal(resolveRepositoryUrl('https://gitlab.com/g/s/r', p).fetchUrl, 'file:///srv/gitlab/g/s/r');
  });

  it('refuses an https rewrite target whose host is not allowed or is an IP address', () => {
    assert.throws(
      () =>
        resolveRepositoryUrl('https://github.com/a/b', {
          allowedHosts: [],
          rewrites: { 'https://github.com/': 'https://mirror.example.org/' },
        }),
      GitUrlError,
    );
    assert.throws(
      () =>
        resolveRepositoryUrl('https://github.com/a/b', {
          allowedHosts: ['127.0.0.1'],
          rewrites: { 'https://github.com/': 'https://127.0.0.1/' },
        }),
      GitUrlError,
    );
  });

  it('refuses rewrite targets that are not https or an absolute file:/// path', () => {
    for (const target of ['http://mirror.example.org/', 'ext::sh -c ', 'file://host/srv/', 'file:///srv/../etc/', 'ssh://mirror/']) {
      assert.throws(
        () =>
          resolveRepositoryUrl('https://github.com/a/b', {
            allowedHosts: ['mirror.example.org'],
            rewrites: { 'https://github.com/': target },
          }),
        GitUrlError,
        target,
      );
    }
  });

  it('does not let the user reach a rewrite target directly', () => {
    const p: GitPolicy = { allowedHosts: [], rewrites: { 'https://github.com/': 'file:///srv/mirror/' } };
    assert.throws(() => resolveRepositoryUrl('file:///srv/mirror/a/b', p), GitUrlError);
  });
});

describe('numeric ids', () => {
  it('are stable positive integers below 2^48, equal for spellings of the same URL', () => {
    const id = repositoryNumericId('https://github.com/acme/pipe');
    assert.ok(Number.isSafeInteger(id) && id > 0 && id < 2 ** 48);
    assert.equal(repositoryNumericId('https://github.com/acme/pipe'), id);
    assert.equal(repositoryNumericId('https://github.com/Acme/Pipe.git/'), id);
    assert.notEqual(repositoryNumericId('https://github.com/acme/pipe2'), id);

    const owner = ownerNumericId('github.com', 'acme');
    assert.ok(Number.isSafeInteger(owner) && owner > 0 && owner < 2 ** 48);
    assert.equal(ownerNumericId('GitHub.com', 'ACME'), owner);
    assert.notEqual(ownerNumericId('gitlab.com', 'acme'), owner);
    assert.notEqual(ownerNumericId('github.com', 'acme'), repositoryNumericId('github.com/acme'));
  });
});
