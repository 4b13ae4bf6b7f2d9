import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RepositoryUnreachableError } from '../../src/git/ls-remote.js';
import { GitRefError, SnapshotFileError, fetchSnapshot, materializeCommit } from '../../src/git/snapshot.js';
import { resolveRepositoryUrl, type GitPolicy, type ResolvedRepository } from '../../src/git/url-policy.js';
import { createGitMirror, type CreatedRepo, type GitMirror } from '../../../../test/support/git-repos.js';

describe('fetchSnapshot and materializeCommit', () => {
  let mirror: GitMirror;
  let policy: GitPolicy;
  let created: CreatedRepo;
  let repo: ResolvedRepository;
  let cacheDir: string;
  before(() => {
    mirror = createGitMirror();
    policy = { allowedHosts: [], rewrites: mirror.rewrites };
    created = mirror.create('acme/pipe', {
      files: {
        'main.nf': 'workflow { println "hi" }\n',
        'nextflow.config': "manifest { name = 'pipe' }\n",
        'modules/align/main.nf': 'process ALIGN {}\n',
        'docs/odd name with spaces.md': 'spaces\n',
        'big.txt': 'x'.repeat(1024 * 1024 + 1),
      },
      branches: { dev: { 'dev-only.txt': 'dev\n' } },
      tags: { 'v1.0': { message: 'release 1.0' } },
    });
    repo = resolveRepositoryUrl(created.url, policy);
    cacheDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-git-cache-'));
  });
  after(() => mirror.remove());

  it('fetches a branch and lists every file of its tree', async () => {
    const snap = await fetchSnapshot(repo, 'main', cacheDir);
    assert.equal(snap.commit, created.heads.main);
    assert.deepEqual([...snap.files].sort(), [
      'big.txt',
      'docs/odd name with spaces.md',
      'main.nf',
      'modules/align/main.nf',
      'nextflow.config',
    ]);
    assert.equal(await snap.readFile('main.nf'), 'workflow { println "hi" }\n');
    assert.equal(await snap.readFile('./modules/align/main.nf'), 'process ALIGN {}\n');
    assert.equal(await snap.readFile('docs/odd name with spaces.md'), 'spaces\n');
    assert.equal(await snap.readFile('absent.nf'), null);
    assert.equal(await snap.readFile('modules'), null);
    // one bare repository per repository, named by a hash
    assert.deepEqual(
      readdirSync(cacheDir).map((d) => /^[0-9a-f]{32}$/.test(d)),
      [true],
    );
  });

  it('refuses "..", absolute paths and files over 1 MiB', async () => {
    const snap = await fetchSnapshot(repo, 'main', cacheDir);
    for (const bad of ['../etc/passwd', 'modules/../../x', '/etc/passwd', '', 'a\0b']) {
      await assert.rejects(snap.readFile(bad), SnapshotFileError, JSON.stringify(bad));
    }
    await assert.rejects(snap.readFile('big.txt'), /larger than 1 MiB/);
  });

  it('fetches another branch, an annotated tag and a full commit sha', async () => {
    const dev = await fetchSnapshot(repo, 'dev', cacheDir);
    assert.equal(dev.commit, created.heads.dev);
    assert.ok(dev.files.includes('dev-only.txt'));
    assert.equal(await dev.readFile('dev-only.txt'), 'dev\n');

    const tag = await fetchSnapshot(repo, 'v1.0', cacheDir);
    assert.equal(tag.commit, created.heads.main);
    assert.ok(!tag.files.includes('dev-only.txt'));

    const bySha = await fetchSnapshot(repo, created.heads.dev!, cacheDir);
    assert.equal(bySha.commit, created.heads.dev);
    // a sha the cache already holds is answered without a fetch, so a fresh cache is the real test
    const fresh = await fetchSnapshot(repo, created.heads.dev!, mkdtempSync(path.join(os.tmpdir(), 'runyard-git-cache-')));
    assert.equal(fresh.commit, created.heads.dev);
  });

  it('serializes concurrent fetches of the same repository', async () => {
    const refs = ['main', 'dev', 'v1.0', 'main', 'dev', 'v1.0'];
    const snaps = await Promise.all(refs.map((r) => fetchSnapshot(repo, r, cacheDir)));
    assert.deepEqual(
      snaps.map((s) => s.commit),
      [created.heads.main, created.heads.dev, created.heads.main, created.heads.main, created.heads.dev, created.heads.main],
    );
  });

  it('refuses refs that are not branch, tag or commit names, before running git', async () => {
    for (const bad of [
      '--upload-pack=touch /tmp/x',
      '-x',
      'main:refs/heads/evil',
      '+main',
      'a..b',
      'a b',
      'a\nb',
      'x@{1}',
      '',
      'refs/heads/',
      '.hidden',
      'a.lock',
    ]) {
      await assert.rejects(fetchSnapshot(repo, bad, cacheDir), GitRefError, JSON.stringify(bad));
    }
  });

  it('answers GitRefError for a branch or commit that does not exist', async () => {
    await assert.rejects(fetchSnapshot(repo, 'no-such-branch', cacheDir), (err: unknown) => {
      assert.ok(err instanceof GitRefError, String(err));
      assert.match(err.message, /no-such-branch.*not found in https:\/\/github\.com\/acme\/pipe/);
      return true;
    });
    await assert.rejects(fetchSnapshot(repo, '0123456789abcdef0123456789abcdef01234567', cacheDir), GitRefError);
  });

  it('answers RepositoryUnreachableError for a repository that does not exist', async () => {
    await assert.rejects(
      fetchSnapshot(resolveRepositoryUrl('https://github.com/acme/missing', policy), 'main', cacheDir),
      RepositoryUnreachableError,
    );
  });

  it('materializes the tree of a commit into a directory', async () => {
    const target = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-work-')), 'checkout');
    await materializeCommit(repo, created.heads.dev!, mkdtempSync(path.join(os.tmpdir(), 'runyard-git-cache-')), target);
    assert.equal(readFileSync(path.join(target, 'main.nf'), 'utf8'), 'workflow { println "hi" }\n');
    assert.equal(readFileSync(path.join(target, 'modules/align/main.nf'), 'utf8'), 'process ALIGN {}\n');
    assert.equal(readFileSync(path.join(target, 'dev-only.txt'), 'utf8'), 'dev\n');
    assert.equal(existsSync(path.join(target, '.git')), false);
    await assert.rejects(materializeCommit(repo, 'main', cacheDir, target), GitRefError);
  });
});
