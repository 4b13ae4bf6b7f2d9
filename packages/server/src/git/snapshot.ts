import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { unreachableFrom } from './ls-remote.js';
import { GitCommandError, runGit } from './run-git.js';
import { assertFetchable, type ResolvedRepository } from './url-policy.js';

/**
 * Shallow fetches of one commit into a per-repository bare cache, and read access to its tree.
 * Each repository has its own bare repository under cacheDir, named by a hash of its canonical
 * URL; fetches into the same one are serialized within this process.
 */
export interface RepositorySnapshot {
  /** Full commit sha. */
  commit: string;
  /** Every file (blob or symlink) in the commit's tree, repository-relative, in git order. */
  files: string[];
  /** The file's text, or null when the commit has no such file. Refuses "..", absolute paths and files over 1 MiB. */
  readFile(path: string): Promise<string | null>;
}

/** A branch, tag or commit that is not valid or does not exist in the repository. */
export class GitRefError extends Error {
  override name = 'GitRefError';
}

/** A path asked of a snapshot that is refused (absolute, "..") or a file that is too large to read. */
export class SnapshotFileError extends Error {
  override name = 'SnapshotFileError';
}

export const MAX_SNAPSHOT_FILE_BYTES = 1024 * 1024;

const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const FETCH_CONFIG = ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false', '-c', 'fetch.writeCommitGraph=false'];

const locks = new Map<string, Promise<unknown>>();

/** Runs fn after every earlier fn for the same key has finished (in this process). */
async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.catch(() => undefined);
  locks.set(key, tail);
  try {
    return await run;
  } finally {
    if (locks.get(key) === tail) locks.delete(key);
  }
}

/** True for a full commit sha (40 or 64 lowercase hex digits). */
export function isFullCommitSha(ref: string): boolean {
  return FULL_SHA.test(ref);
}

/** Refuses refs that git would not accept as a branch or tag name, or that it could read as an option or refspec. */
export function assertSafeRef(ref: string): void {
  const bad = (why: string): never => {
    throw new GitRefError(`"${ref.replace(/[^\x20-\x7e]/g, '?').slice(0, 100)}" is not a valid branch, tag or commit: ${why}.`);
  };
  if (typeof ref !== 'string' || !ref) throw new GitRefError('A branch, tag or commit is required.');
  if (ref.length > 255) bad('it is too long');
  if (isFullCommitSha(ref)) return;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref)) bad('it contains a space, a control character or one of ~ ^ : ? * [ \\');
  if (ref.startsWith('-') || ref.startsWith('+')) bad('it starts with "-" or "+"');
  if (ref.includes('..') || ref.includes('@{') || ref === '@') bad('it contains ".." or "@{"');
  if (ref.startsWith('/') || ref.endsWith('/') || ref.includes('//')) bad('it has an empty path component');
  if (ref.endsWith('.') || ref.endsWith('.lock')) bad('it ends with "." or ".lock"');
  if (ref.split('/').some((c) => c.startsWith('.'))) bad('a component starts with "."');
}

/** The bare cache repository of a repository: <cacheDir>/<sha256 of the canonical URL, 32 hex>. */
export function cacheRepositoryDir(repo: ResolvedRepository, cacheDir: string): string {
  const key = createHash('sha256').update(repo.url).digest('hex').slice(0, 32);
  return path.join(path.resolve(cacheDir), key);
}

async function ensureBareRepository(dir: string): Promise<void> {
  if (existsSync(path.join(dir, 'HEAD')) && existsSync(path.join(dir, 'objects'))) return;
  await mkdir(dir, { recursive: true });
  await runGit(['init', '--bare', '--quiet', '--template='], { cwd: dir });
}

async function hasCommit(gitDir: string, sha: string): Promise<boolean> {
  try {
    await runGit([`--git-dir=${gitDir}`, 'cat-file', '-e', `${sha}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** Fetches ref (depth 1) into the cache repository and answers the commit it names. Call under the lock. */
async function fetchCommit(repo: ResolvedRepository, ref: string, gitDir: string): Promise<string> {
  if (isFullCommitSha(ref) && (await hasCommit(gitDir, ref))) return ref;
  try {
    await runGit(
      [
        `--git-dir=${gitDir}`,
        ...FETCH_CONFIG,
        'fetch',
        '--quiet',
        '--depth',
        '1',
        '--no-tags',
        '--recurse-submodules=no',
        '--',
        repo.fetchUrl,
        ref,
      ],
      {
        allowFile: repo.allowFile,
        timeoutMs: 120_000,
        maxOutputBytes: 1024 * 1024,
      },
    );
  } catch (err) {
    if (err instanceof GitCommandError && err.reason === 'exit') {
      const text = err.stderr.toLowerCase();
      if (
        /couldn't find remote ref|not our ref|unadvertised object|no such remote ref|invalid refspec|bad object|remote error: upload-pack/.test(
          text,
        )
      ) {
        throw new GitRefError(`Branch, tag or commit "${ref}" was not found in ${repo.url}.`);
      }
    }
    throw unreachableFrom(repo, err);
  }
  const { stdout } = await runGit([`--git-dir=${gitDir}`, 'rev-parse', '--verify', '--quiet', 'FETCH_HEAD^{commit}']);
  const commit = stdout.trim();
  if (!FULL_SHA.test(commit)) throw new GitRefError(`"${ref}" in ${repo.url} does not name a commit.`);
  if (isFullCommitSha(ref) && commit !== ref) throw new GitRefError(`Commit ${ref} was not found in ${repo.url}.`);
  return commit;
}

interface TreeEntry {
  blob: string;
  size: number;
}

async function listTree(gitDir: string, commit: string): Promise<Map<string, TreeEntry>> {
  const { stdout } = await runGit([`--git-dir=${gitDir}`, 'ls-tree', '-r', '-l', '-z', '--full-tree', commit], {
    maxOutputBytes: 64 * 1024 * 1024,
  });
  const entries = new Map<string, TreeEntry>();
  for (const record of stdout.split('\0')) {
    if (!record) continue;
    // "<mode> SP <type> SP <object> SP+ <size> TAB <path>"
    const tab = record.indexOf('\t');
    const [, type, object, size] = record.slice(0, tab).split(/ +/);
    if (type !== 'blob' || !object) continue;
    entries.set(record.slice(tab + 1), { blob: object, size: Number(size) });
  }
  return entries;
}

/** Checks a repository-relative path asked of a snapshot; answers it without a leading "./". */
function checkSnapshotPath(p: string): string {
  if (typeof p !== 'string' || !p) throw new SnapshotFileError('A file path is required.');
  if (/[\x00-\x1f\x7f]/.test(p)) throw new SnapshotFileError('A file path must not contain control characters.');
  if (p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p))
    throw new SnapshotFileError(`"${p}" is absolute; give a path relative to the repository root.`);
  const rel = p.replace(/^(?:\.\/)+/, '');
  if (rel.split(/[\\/]/).includes('..')) throw new SnapshotFileError(`"${p}" leaves the repository (".." is not allowed).`);
  return rel;
}

/**
 * Fetches one branch, tag or full commit sha of a repository (depth 1) into the cache under
 * cacheDir and answers its commit, file list and a reader. Throws GitUrlError (not resolved
 * through the policy), GitRefError (bad or unknown ref), RepositoryUnreachableError (from ls-remote.ts).
 */
export async function fetchSnapshot(repo: ResolvedRepository, ref: string, cacheDir: string): Promise<RepositorySnapshot> {
  assertFetchable(repo);
  assertSafeRef(ref);
  const gitDir = cacheRepositoryDir(repo, cacheDir);
  const { commit, entries } = await withLock(gitDir, async () => {
    await ensureBareRepository(gitDir);
    const commit = await fetchCommit(repo, ref, gitDir);
    return { commit, entries: await listTree(gitDir, commit) };
  });
  return {
    commit,
    files: [...entries.keys()],
    async readFile(p: string): Promise<string | null> {
      const entry = entries.get(checkSnapshotPath(p));
      if (!entry) return null;
      if (entry.size > MAX_SNAPSHOT_FILE_BYTES) {
        throw new SnapshotFileError(`"${p}" is larger than ${MAX_SNAPSHOT_FILE_BYTES / 1024 / 1024} MiB and is not read.`);
      }
      const { stdout } = await runGit([`--git-dir=${gitDir}`, 'cat-file', 'blob', entry.blob], {
        maxOutputBytes: MAX_SNAPSHOT_FILE_BYTES + 4096,
      });
      return stdout;
    },
  };
}

/**
 * Writes the tree of one commit of a repository into targetDir (created when missing), fetching
 * the commit into the cache first when it is not there. Symbolic links are written as links,
 * as git does; git never writes through a link.
 */
export async function materializeCommit(repo: ResolvedRepository, commit: string, cacheDir: string, targetDir: string): Promise<void> {
  assertFetchable(repo);
  if (!isFullCommitSha(commit)) throw new GitRefError(`"${String(commit).slice(0, 100)}" is not a full commit sha.`);
  const gitDir = cacheRepositoryDir(repo, cacheDir);
  const workTree = path.resolve(targetDir);
  await withLock(gitDir, async () => {
    await ensureBareRepository(gitDir);
    await fetchCommit(repo, commit, gitDir);
    await mkdir(workTree, { recursive: true });
    const index = path.join(gitDir, 'index');
    await rm(index, { force: true });
    try {
      await runGit([`--git-dir=${gitDir}`, `--work-tree=${workTree}`, 'checkout', '--quiet', commit, '--', '.'], {
        timeoutMs: 300_000,
        maxOutputBytes: 1024 * 1024,
      });
    } finally {
      await rm(index, { force: true });
    }
  });
}
