import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listRemoteRefs, RepositoryUnreachableError } from '../../src/git/ls-remote.js';
import { GitUrlError, resolveRepositoryUrl, type GitPolicy, type ResolvedRepository } from '../../src/git/url-policy.js';
import { createGitMirror, type CreatedRepo, type GitMirror } from '../../../../test/support/git-repos.js';

describe('listRemoteRefs', () => {
  let mirror: GitMirror;
  let policy: GitPolicy;
  let repo: CreatedRepo;
  before(() => {
    mirror = createGitMirror();
    policy = { allowedHosts: [], rewrites: mirror.rewrites };
    repo = mirror.create('acme/pipe', {
      files: { 'main.nf': 'workflow {}\n' },
      branches: { dev: { 'dev.txt': 'dev\n' } },
      tags: { 'v1.0': { message: 'release 1.0' }, light: { branch: 'dev' } },
    });
  });
  after(() => mirror.remove());

  it('lists branches, tags (annotated ones peeled to the commit) and the default branch', async () => {
    const resolved = resolveRepositoryUrl('https://github.com/acme/pipe.git', policy);
    assert.equal(resolved.allowFile, true);
    const refs = await listRemoteRefs(resolved);
    assert.equal(refs.defaultBranch, 'main');
    assert.equal(refs.headSha, repo.heads.main);
    assert.deepEqual(refs.branches, [
      { name: 'dev', sha: repo.heads.dev },
      { name: 'main', sha: repo.heads.main },
    ]);
    assert.deepEqual(refs.tags, [
      { name: 'light', sha: repo.heads.dev },
      { name: 'v1.0', sha: repo.heads.main },
    ]);
  });

  it('works when the caller has GIT_* variables set', async () => {
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = '/nonexistent/bogus.git';
    try {
      const refs = await listRemoteRefs(resolveRepositoryUrl('https://github.com/acme/pipe', policy));
      assert.equal(refs.defaultBranch, 'main');
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
    }
  });

  it('answers RepositoryUnreachableError for a repository that does not exist, without naming the mirror', async () => {
    await assert.rejects(listRemoteRefs(resolveRepositoryUrl('https://github.com/acme/missing', policy)), (err: unknown) => {
      assert.ok(err instanceof RepositoryUnreachableError, String(err));
      assert.match(err.message, /https:\/\/github\.com\/acme\/missing/);
      assert.match(err.message, /does not exist or is not public/);
      assert.ok(!err.message.includes(mirror.root));
      return true;
    });
  });

  it('refuses a hand-made repository whose fetch URL did not come from the policy', async () => {
    const forged: ResolvedRepository = {
      url: 'https://github.com/a/b',
      fetchUrl: 'ext::sh -c id',
      allowFile: true,
      host: 'github.com',
      ownerPath: 'a',
      name: 'b',
    };
    await assert.rejects(listRemoteRefs(forged), GitUrlError);
    await assert.rejects(listRemoteRefs({ ...forged, fetchUrl: `file://${mirror.root}/acme/pipe.git`, allowFile: false }), GitUrlError);
  });
});
