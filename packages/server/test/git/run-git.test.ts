import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { constants, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GitCommandError, looksLikeGitUrl, runGit } from '../../src/git/run-git.js';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { selfSignedCertificate } from '../../../../test/support/tls.js';

const isGitError = (reason: GitCommandError['reason']) => (err: unknown) => {
  assert.ok(err instanceof GitCommandError, `expected GitCommandError, got ${String(err)}`);
  assert.equal(err.reason, reason, err.message);
  return true;
};

describe('runGit', () => {
  let mirror: GitMirror;
  let fileUrl: string;
  before(() => {
    mirror = createGitMirror();
    const repo = mirror.create('acme/pipe', { files: { 'main.nf': 'workflow {}\n' } });
    fileUrl = `file://${repo.path}`;
  });
  after(() => mirror.remove());

  it('runs git and answers its output', async () => {
    const { stdout } = await runGit(['--version']);
    assert.match(stdout, /^git version /);
  });

  it('requires "--" before anything that looks like a URL', async () => {
    for (const url of ['https://github.com/a/b', 'file:///tmp/x', 'ext::sh -c x', 'git@github.com:a/b', 'ssh://host/x', 'fd::3']) {
      assert.ok(looksLikeGitUrl(url), url);
      await assert.rejects(runGit(['ls-remote', url]), isGitError('arguments'), url);
      await assert.rejects(runGit(['ls-remote', '--heads', url, '--']), isGitError('arguments'), url);
    }
    for (const notUrl of ['HEAD', 'refs/heads/*', 'abc123:main.nf', '--git-dir=/tmp/x::y', '/srv/repo', 'main'])
      assert.ok(!looksLikeGitUrl(notUrl), notUrl);
    await assert.rejects(runGit(['ls-remote', '--', 'a\0b']), isGitError('arguments'));
  });

  it('allows the file protocol only when asked, and never ext::', async () => {
    await assert.rejects(runGit(['ls-remote', '--', fileUrl]), isGitError('exit'));
    const { stdout } = await runGit(['ls-remote', '--', fileUrl], { allowFile: true });
    assert.match(stdout, /refs\/heads\/main/);

    const marker = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-ext-')), 'pwned');
    await assert.rejects(runGit(['ls-remote', '--', `ext::sh -c touch% ${marker}`], { allowFile: true }), isGitError('exit'));
    assert.equal(existsSync(marker), false);
  });

  it('ignores inherited GIT_* variables and user config', async () => {
    const saved = { ...process.env };
    const home = mkdtempSync(path.join(os.tmpdir(), 'runyard-evil-home-'));
    const evilConfig = path.join(home, 'gitconfig');
    execFileSync('git', ['config', '--file', evilConfig, 'protocol.file.allow', 'always']);
    Object.assign(process.env, {
      GIT_DIR: '/nonexistent/bogus.git',
      GIT_WORK_TREE: '/nonexistent',
      GIT_CONFIG_GLOBAL: evilConfig,
      GIT_CONFIG_PARAMETERS: "'protocol.allow'='always'",
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'protocol.file.allow',
      GIT_CONFIG_VALUE_0: 'always',
      GIT_ALLOW_PROTOCOL: 'file:ext',
      HOME: home,
    });
    try {
      // Still refused: none of the variables above reached git.
      await assert.rejects(runGit(['ls-remote', '--', fileUrl]), isGitError('exit'));
      // And GIT_DIR does not break a normal call.
      const { stdout } = await runGit(['ls-remote', '--', fileUrl], { allowFile: true });
      assert.match(stdout, /refs\/heads\/main/);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it('kills the whole process group on timeout', { timeout: 90_000 }, async () => {
    // A "repository" whose HEAD is a FIFO: git-upload-pack (a child of git) blocks opening it.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-hang-'));
    const repo = path.join(dir, 'hang.git');
    mkdirSync(path.join(repo, 'objects'), { recursive: true });
    mkdirSync(path.join(repo, 'refs'), { recursive: true });
    const fifo = path.join(repo, 'HEAD');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    await assert.rejects(runGit(['ls-remote', '--', `file://${repo}`], { allowFile: true, timeoutMs: 1000 }), (err: unknown) => {
      isGitError('timeout')(err);
      assert.match((err as Error).message, /timed out after 1000 ms/);
      return true;
    });
    // Without the timeout, git would wait on the FIFO for ever; the bound leaves room for a loaded machine.
    assert.ok(Date.now() - started < 30_000);
    // Once the reader is gone, opening the FIFO for writing without blocking fails with ENXIO.
    let readerGone = false;
    for (let i = 0; i < 300 && !readerGone; i++) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        await new Promise((r) => setTimeout(r, 100));
      } catch (err) {
        readerGone = (err as NodeJS.ErrnoException).code === 'ENXIO';
      }
    }
    assert.ok(readerGone, 'git-upload-pack still holds the FIFO open');
  });

  it('fails when the output exceeds the cap', async () => {
    await assert.rejects(runGit(['ls-remote', '--', fileUrl], { allowFile: true, maxOutputBytes: 10 }), isGitError('output-limit'));
  });

  it('reports a failure with a short message', async () => {
    await assert.rejects(runGit(['ls-remote', '--', `file://${mirror.root}/nope/none.git`], { allowFile: true }), (err: unknown) => {
      isGitError('exit')(err);
      const e = err as GitCommandError;
      assert.match(e.message, /^git ls-remote failed \(exit code \d+\)/);
      assert.ok(e.message.length < 500);
      return true;
    });
  });

  it('does not follow redirects', { timeout: 60_000 }, async () => {
    const { certFile, keyFile } = selfSignedCertificate();
    const requests: string[] = [];
    const server = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
      requests.push(req.url ?? '');
      res.writeHead(302, { location: `https://127.0.0.1:${(server.address() as AddressInfo).port}/elsewhere${req.url}` });
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      await assert.rejects(
        runGit(['-c', `http.sslCAInfo=${certFile}`, 'ls-remote', '--', `https://127.0.0.1:${port}/acme/pipe.git`], { timeoutMs: 10_000 }),
        isGitError('exit'),
      );
      assert.equal(requests.length, 1, `git followed a redirect: ${requests.join(', ')}`);
      assert.ok(!requests[0]!.startsWith('/elsewhere'));
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
