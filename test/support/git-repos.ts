import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Local bare git repositories for tests, made with the real git. A mirror root stands in for
 * https://github.com/: a repository "acme/pipe" lives at <root>/acme/pipe.git, and the rewrite
 * {"https://github.com/": "file://<root>/"} (RUNYARD_GIT_URL_REWRITES) makes the server read it.
 */
export interface RepoSpec {
  /** Files of the first commit on the default branch. */
  files: Record<string, string>;
  /** Symbolic links of the first commit (path in the repository -> the link's text), as a hostile repository has them. */
  symlinks?: Record<string, string>;
  /** Default branch name (HEAD of the bare repository); "main" when not given. */
  defaultBranch?: string;
  /** Extra branches, each one commit on top of the default branch adding or replacing these files. */
  branches?: Record<string, Record<string, string>>;
  /** Tags on a branch (default branch when not given); annotated when a message is given. */
  tags?: Record<string, { branch?: string; message?: string }>;
}

export interface CreatedRepo {
  /** https://github.com/<owner>/<repo> */
  url: string;
  /** Path of the bare repository. */
  path: string;
  /** Commit sha of each branch. */
  heads: Record<string, string>;
}

export interface GitMirror {
  root: string;
  rewrites: Record<string, string>;
  create(ownerRepo: string, spec: RepoSpec): CreatedRepo;
  remove(): void;
}

/** The environment for the helper's own git: nothing from the caller's GIT_* or config. */
function env(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Runyard Test',
    GIT_AUTHOR_EMAIL: 'test@runyard.invalid',
    GIT_COMMITTER_NAME: 'Runyard Test',
    GIT_COMMITTER_EMAIL: 'test@runyard.invalid',
    GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
  };
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(dir, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

/** A temporary mirror root with a factory for bare repositories under it. */
export function createGitMirror(): GitMirror {
  const root = mkdtempSync(path.join(os.tmpdir(), 'runyard-git-mirror-'));
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-git-work-'));
  const e = env(scratch);
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env: e, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

  return {
    root,
    rewrites: { 'https://github.com/': `file://${root}/` },
    create(ownerRepo, spec) {
      const main = spec.defaultBranch ?? 'main';
      const work = mkdtempSync(path.join(scratch, 'w-'));
      git(work, 'init', '--quiet', '--initial-branch', main);
      writeFiles(work, spec.files);
      for (const [rel, target] of Object.entries(spec.symlinks ?? {})) {
        mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
        symlinkSync(target, path.join(work, rel));
      }
      git(work, 'add', '--all');
      git(work, 'commit', '--quiet', '--allow-empty', '-m', 'initial');
      for (const [branch, files] of Object.entries(spec.branches ?? {})) {
        git(work, 'checkout', '--quiet', '-b', branch, main);
        writeFiles(work, files);
        git(work, 'add', '--all');
        git(work, 'commit', '--quiet', '--allow-empty', '-m', `on ${branch}`);
      }
      git(work, 'checkout', '--quiet', main);
      for (const [tag, t] of Object.entries(spec.tags ?? {})) {
        const target = t.branch ?? main;
        if (t.message !== undefined) git(work, 'tag', '-a', tag, '-m', t.message, target);
        else git(work, 'tag', tag, target);
      }
      const bare = path.join(root, `${ownerRepo}.git`);
      mkdirSync(path.dirname(bare), { recursive: true });
      git(scratch, 'clone', '--quiet', '--bare', work, bare);
      git(bare, 'symbolic-ref', 'HEAD', `refs/heads/${main}`);
      const heads: Record<string, string> = {};
      for (const b of [main, ...Object.keys(spec.branches ?? {})]) heads[b] = git(bare, 'rev-parse', `refs/heads/${b}`);
      rmSync(work, { recursive: true, force: true });
      return { url: `https://github.com/${ownerRepo}`, path: bare, heads };
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
