import { GitCommandError, runGit } from './run-git.js';
import { assertFetchable, type ResolvedRepository } from './url-policy.js';

/** The repository could not be read: it does not exist, is private, or its host did not answer. */
export class RepositoryUnreachableError extends Error {
  override name = 'RepositoryUnreachableError';
  constructor(
    /** The canonical URL (never the fetch URL, which may name an internal mirror). */
    readonly url: string,
    readonly reason: string,
  ) {
    super(`Repository ${url} could not be read: ${reason}.`);
  }
}

export interface RemoteRef {
  name: string;
  sha: string;
}

export interface RemoteRefs {
  /** The branch HEAD points at, e.g. "main"; null when the server does not say (or the repository is empty). */
  defaultBranch: string | null;
  headSha: string | null;
  branches: RemoteRef[];
  /** Annotated tags are resolved to the commit they point at. */
  tags: RemoteRef[];
}

/**
 * Turns a failed git command against a remote into RepositoryUnreachableError with a reason a
 * person can act on. Failures that are not about the remote (git missing, bad arguments) are
 * returned unchanged.
 */
export function unreachableFrom(repo: ResolvedRepository, err: unknown): unknown {
  if (!(err instanceof GitCommandError)) return err;
  if (err.reason === 'spawn' || err.reason === 'arguments') return err;
  if (err.reason === 'timeout') return new RepositoryUnreachableError(repo.url, 'the git server did not answer in time');
  if (err.reason === 'output-limit') return new RepositoryUnreachableError(repo.url, 'the git server sent more data than Runyard accepts');
  const text = err.stderr.toLowerCase();
  let reason = 'git could not read it';
  if (/redirect/.test(text)) {
    reason = "the server answered with a redirect, which Runyard does not follow; give the repository's canonical URL";
  } else if (
    /could not resolve host|failed to connect|connection refused|couldn't connect|network is unreachable|timed out|ssl|certificate/.test(
      text,
    )
  ) {
    reason = 'its host could not be reached';
  } else if (
    /not found|does not appear to be a git repository|could not read username|authentication|terminal prompts disabled|403|401|not a git repository|no such file/.test(
      text,
    )
  ) {
    reason = 'it does not exist or is not public';
  }
  return new RepositoryUnreachableError(repo.url, reason);
}

/** Lists the branches, tags and default branch of a repository with `git ls-remote`; no clone. */
export async function listRemoteRefs(repo: ResolvedRepository, opts: { timeoutMs?: number } = {}): Promise<RemoteRefs> {
  assertFetchable(repo);
  let stdout: string;
  try {
    ({ stdout } = await runGit(['ls-remote', '--symref', '--', repo.fetchUrl, 'HEAD', 'refs/heads/*', 'refs/tags/*'], {
      allowFile: repo.allowFile,
      timeoutMs: opts.timeoutMs ?? 30_000,
    }));
  } catch (err) {
    throw unreachableFrom(repo, err);
  }
  return parseLsRemote(stdout);
}

/** Parses `git ls-remote --symref` output. */
export function parseLsRemote(stdout: string): RemoteRefs {
  let defaultBranch: string | null = null;
  let headSha: string | null = null;
  const branches = new Map<string, string>();
  const tags = new Map<string, string>();
  const peeled = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    if (tab === -1) continue;
    const left = line.slice(0, tab);
    const ref = line.slice(tab + 1);
    if (left.startsWith('ref: ')) {
      const target = left.slice('ref: '.length);
      if (ref === 'HEAD' && target.startsWith('refs/heads/')) defaultBranch = target.slice('refs/heads/'.length);
      continue;
    }
    if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(left)) continue;
    if (ref === 'HEAD') headSha = left;
    else if (ref.startsWith('refs/heads/')) branches.set(ref.slice('refs/heads/'.length), left);
    else if (ref.startsWith('refs/tags/') && ref.endsWith('^{}')) peeled.set(ref.slice('refs/tags/'.length, -3), left);
    else if (ref.startsWith('refs/tags/')) tags.set(ref.slice('refs/tags/'.length), left);
  }
  for (const [name, sha] of peeled) tags.set(name, sha);
  const list = (m: Map<string, string>) =>
    [...m].map(([name, sha]) => ({ name, sha })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { defaultBranch, headSha, branches: list(branches), tags: list(tags) };
}
