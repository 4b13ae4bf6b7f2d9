import { createHash } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * Which repository URLs workflow import accepts, and where git really fetches them from.
 *
 * Only `https://` URLs on allowed hosts pass; everything is checked on the text, before any
 * process is spawned or any connection is made (reliability-security.md T8). The caller passes
 * plain values from the server configuration; this module reads no environment.
 */
export interface GitPolicy {
  /** Hosts besides DEFAULT_ALLOWED_HOSTS (which are always allowed). Compared lowercased, without a trailing dot. */
  allowedHosts: string[];
  /** URL prefix -> replacement, like git's url.<base>.insteadOf; the longest matching prefix wins. */
  rewrites: Record<string, string>;
}

export const DEFAULT_ALLOWED_HOSTS: readonly string[] = Object.freeze(['github.com', 'gitlab.com', 'bitbucket.org']);

export interface ResolvedRepository {
  /** Canonical https URL of the repository as the user named it: lowercase host, no `.git` suffix, no trailing slash. */
  url: string;
  /** What git will actually contact, after rewrites (https URLs get a `.git` suffix, because redirects are not followed). */
  fetchUrl: string;
  /** True only when fetchUrl is a `file://` rewrite target configured by the operator. */
  allowFile: boolean;
  host: string;
  /** "acme", or "group/subgroup" on GitLab, or the project KEY on Bitbucket Server. */
  ownerPath: string;
  name: string;
}

/** A repository URL that Runyard refuses; the message says what to change. Never contains credentials. */
export class GitUrlError extends Error {
  override name = 'GitUrlError';
}

const MAX_URL_LENGTH = 2048;
const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/i;
const PATH_SEGMENT = /^[A-Za-z0-9_.~][A-Za-z0-9_.~-]*$/;
/** Schemes that are refused by name even without "//" (file:/etc/x, ssh:host). */
const KNOWN_SCHEMES = new Set(['file', 'ssh', 'git', 'git+ssh', 'ssh+git', 'ftp', 'ftps', 'rsync', 'ext', 'fd', 'http']);
/** Hosts whose repository URLs are exactly /OWNER/REPO. */
const TWO_SEGMENT_HOSTS = new Set(['github.com', 'bitbucket.org']);

/** A short, printable excerpt of untrusted text for an error message. */
function excerpt(text: string): string {
  const printable = text.replace(/[^\x21-\x7e]/g, '?');
  return printable.length > 60 ? `${printable.slice(0, 60)}...` : printable;
}

function normalizeHostName(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** The allowed host set of a policy: the defaults plus the operator's, normalized. */
function allowedHostSet(policy: GitPolicy): Set<string> {
  return new Set([...DEFAULT_ALLOWED_HOSTS, ...(policy.allowedHosts ?? [])].map(normalizeHostName));
}

/** True for every spelling of an IP address that a resolver or a URL parser would accept. */
function looksLikeIpAddress(host: string): boolean {
  if (host.includes('[') || host.includes(']') || host.includes(':')) return true;
  if (isIP(host) !== 0) return true;
  const labels = host.split('.');
  // WHATWG URL and inet_aton read a host whose last label is a number (decimal, octal or 0x-hex) as IPv4.
  if (NUMERIC_LABEL.test(labels[labels.length - 1]!)) return true;
  if (labels.every((l) => NUMERIC_LABEL.test(l))) return true;
  try {
    const parsed = new URL(`https://${host}/`).hostname;
    if (isIP(parsed.replace(/^\[|\]$/g, '')) !== 0) return true;
  } catch {
    return true;
  }
  return false;
}

interface ParsedHttps {
  host: string;
  segments: string[];
}

/**
 * Parses an https URL strictly: no credentials, a DNS host name (never an IP), the default port,
 * a path of plain segments (no `..`, no percent-encoding, no leading `-`), no query or fragment.
 * `what` names the URL in messages ("repository URL", "rewrite target").
 */
function parseHttps(raw: string, what: string): ParsedHttps {
  if (!/^https:\/\//i.test(raw)) throw new GitUrlError(`The ${what} must start with https://.`);
  const rest = raw.slice('https://'.length);
  if (rest.includes('\\')) throw new GitUrlError(`The ${what} must not contain a backslash.`);
  if (rest.includes('?') || rest.includes('#')) {
    throw new GitUrlError(`The ${what} must not contain a query string or a fragment (remove everything from "?" or "#").`);
  }
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const pathPart = slash === -1 ? '' : rest.slice(slash);
  if (authority.includes('@')) {
    throw new GitUrlError(`The ${what} must not contain a user name or credentials; Runyard imports public repositories over https.`);
  }
  if (authority.startsWith('[')) throw new GitUrlError(`The ${what} must name a host, not an IP address.`);
  let hostPart = authority;
  const colon = authority.lastIndexOf(':');
  if (colon !== -1) {
    const port = authority.slice(colon + 1);
    hostPart = authority.slice(0, colon);
    if (port !== '443') {
      throw new GitUrlError(`The ${what} must use the default https port; remove ":${excerpt(port)}".`);
    }
  }
  if (!hostPart) throw new GitUrlError(`The ${what} has no host.`);
  const host = normalizeHostName(hostPart);
  if (looksLikeIpAddress(host)) throw new GitUrlError(`The ${what} must name a host, not an IP address ("${excerpt(hostPart)}").`);
  if (!host.split('.').every((label) => HOST_LABEL.test(label))) {
    throw new GitUrlError(`The ${what} has an invalid host name "${excerpt(hostPart)}".`);
  }

  let path = pathPart;
  if (path.endsWith('/')) path = path.slice(0, -1);
  const segments = path ? path.slice(1).split('/') : [];
  for (const segment of segments) {
    if (segment === '') throw new GitUrlError(`The ${what} has an empty path segment ("//").`);
    if (segment === '.' || segment === '..') throw new GitUrlError(`The ${what} must not contain "." or ".." path segments.`);
    if (segment.startsWith('-')) throw new GitUrlError(`The ${what} has a path segment starting with "-", which is not allowed.`);
    if (segment.includes('%')) throw new GitUrlError(`The ${what} must not contain percent-encoded characters.`);
    if (!PATH_SEGMENT.test(segment)) {
      throw new GitUrlError(`The ${what} has an invalid path segment "${excerpt(segment)}" (letters, digits, ".", "_", "-" and "~" only).`);
    }
  }
  return { host, segments };
}

/** Explains why a non-https input is refused, without echoing anything that could be a credential. */
function refuseScheme(input: string): never {
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(input) || input.includes('::')) {
    throw new GitUrlError('git transport syntax ("<transport>::<address>") is not allowed; give the repository\'s https:// URL.');
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(input)?.[1]?.toLowerCase();
  if (scheme === 'https') throw new GitUrlError('The repository URL must be written https://HOST/OWNER/REPO.');
  if (scheme === 'http') throw new GitUrlError("Plain http:// is not allowed; give the repository's https:// URL.");
  if (scheme && (KNOWN_SCHEMES.has(scheme) || input.slice(scheme.length + 1).startsWith('//'))) {
    throw new GitUrlError(`The "${excerpt(scheme)}:" scheme is not allowed; give the repository's https:// URL.`);
  }
  if (/^[^/\s]+:/.test(input)) {
    throw new GitUrlError("SSH addresses like git@host:owner/repo are not allowed; give the repository's https:// URL.");
  }
  if (input.startsWith('-')) throw new GitUrlError('The repository URL must not start with "-"; give the repository\'s https:// URL.');
  throw new GitUrlError('The repository URL must be an https:// URL such as https://github.com/OWNER/REPO.');
}

function applyRewrite(canonical: string, policy: GitPolicy): { fetchUrl: string; allowFile: boolean } {
  let best: [string, string] | undefined;
  for (const [prefix, replacement] of Object.entries(policy.rewrites ?? {})) {
    const key = normalizeRewritePrefix(prefix);
    if (key && canonical.startsWith(key) && (!best || key.length > best[0].length)) best = [key, replacement];
  }
  if (!best) return { fetchUrl: `${canonical}.git`, allowFile: false };
  const target = best[1] + canonical.slice(best[0].length);
  if (/[\x00-\x20\x7f]/.test(target)) throw new GitUrlError('The configured rewrite target contains spaces or control characters.');
  if (/^file:/i.test(target)) {
    if (!/^file:\/\/\//i.test(target)) throw new GitUrlError('A file: rewrite target must be an absolute file:///path URL.');
    const path = target.slice('file://'.length);
    if (path.includes('?') || path.includes('#') || path.split('/').some((s) => s === '..' || s === '.')) {
      throw new GitUrlError('A file: rewrite target must be a plain absolute path without "..", "?" or "#".');
    }
    return { fetchUrl: `file://${path}`, allowFile: true };
  }
  if (/^https:\/\//i.test(target)) {
    const parsed = parseHttps(target, 'rewrite target');
    if (!allowedHostSet(policy).has(parsed.host)) {
      throw new GitUrlError(`The rewrite target host "${parsed.host}" is not an allowed git host; add it to the allowed hosts.`);
    }
    if (!parsed.segments.length) throw new GitUrlError('The rewrite target must have a path.');
    return { fetchUrl: `https://${parsed.host}/${parsed.segments.join('/')}.git`, allowFile: false };
  }
  throw new GitUrlError('A rewrite target must start with https:// or file:///.');
}

/** Rewrite prefixes are matched against canonical URLs, whose scheme and host are lowercase. */
function normalizeRewritePrefix(prefix: string): string {
  const m = /^(https:\/\/)([^/]*)(.*)$/i.exec(prefix);
  if (!m) return prefix;
  return `https://${normalizeHostName(m[2]!)}${m[3]}`;
}

/**
 * Checks a repository URL given by a user and resolves it to the canonical URL and the URL git
 * will fetch. Throws GitUrlError for anything that is not a plain https URL of a repository on an
 * allowed host. Pure: no I/O.
 */
export function resolveRepositoryUrl(input: string, policy: GitPolicy): ResolvedRepository {
  if (typeof input !== 'string') throw new GitUrlError('The repository URL must be a string.');
  if (/[\x00-\x1f\x7f]/.test(input)) throw new GitUrlError('The repository URL must not contain control characters.');
  const raw = input.replace(/^ +| +$/g, '');
  if (!raw) throw new GitUrlError('The repository URL is empty.');
  if (raw.length > MAX_URL_LENGTH) throw new GitUrlError(`The repository URL is longer than ${MAX_URL_LENGTH} characters.`);
  if (!/^https:\/\//i.test(raw)) refuseScheme(raw);
  if (/\s/.test(raw)) throw new GitUrlError('The repository URL must not contain spaces.');

  const { host, segments: rawSegments } = parseHttps(raw, 'repository URL');
  if (!allowedHostSet(policy).has(host)) {
    const allowed = [...allowedHostSet(policy)].sort().join(', ');
    throw new GitUrlError(`The git host "${host}" is not allowed. Allowed hosts: ${allowed}. An administrator can add hosts.`);
  }

  const segments = [...rawSegments];
  const last = segments[segments.length - 1];
  if (last && /\.git$/i.test(last) && last.length > 4) segments[segments.length - 1] = last.slice(0, -4);

  let ownerPath: string;
  let name: string;
  let path: string;
  const isDefaultHost = DEFAULT_ALLOWED_HOSTS.includes(host);
  if (
    !isDefaultHost &&
    segments[0] === 'projects' &&
    segments[2] === 'repos' &&
    (segments.length === 4 || (segments.length === 5 && segments[4] === 'browse'))
  ) {
    // Bitbucket Server: /projects/KEY/repos/REPO[/browse] is cloned from /scm/key/REPO.
    ownerPath = segments[1]!;
    name = segments[3]!;
    path = `scm/${ownerPath.toLowerCase()}/${name}`;
  } else {
    if (segments.length < 2) throw new GitUrlError(`The repository URL must name an owner and a repository: https://${host}/OWNER/REPO.`);
    if (TWO_SEGMENT_HOSTS.has(host) && segments.length !== 2) {
      throw new GitUrlError(`A ${host} repository URL has exactly two path parts: https://${host}/OWNER/REPO.`);
    }
    ownerPath = segments.slice(0, -1).join('/');
    name = segments[segments.length - 1]!;
    path = segments.join('/');
  }
  if (name === '.git' || !PATH_SEGMENT.test(name)) throw new GitUrlError('The repository URL has no repository name.');

  const url = `https://${host}/${path}`;
  const { fetchUrl, allowFile } = applyRewrite(url, policy);
  return { url, fetchUrl, allowFile, host, ownerPath, name };
}

/**
 * Refuses a ResolvedRepository that did not come out of resolveRepositoryUrl (a fetch URL that is
 * neither https nor an allowed file rewrite). A second line of defence before spawning git.
 */
export function assertFetchable(repo: ResolvedRepository): void {
  const ok = /^https:\/\/[a-z0-9.-]+\//.test(repo.fetchUrl) || (repo.allowFile && /^file:\/\/\//.test(repo.fetchUrl));
  if (!ok || /[\x00-\x20\x7f]/.test(repo.fetchUrl)) throw new GitUrlError('The repository was not resolved through the git URL policy.');
}

/** A positive integer below 2^48 from a hash of the text (never 0). */
function hash48(text: string): number {
  const n = createHash('sha256').update(text).digest().readUIntBE(0, 6);
  return n === 0 ? 1 : n;
}

/** Normalizes a repository URL for id derivation: case-insensitive, without trailing "/" or ".git". */
function idKeyOfUrl(url: string): string {
  let key = url.trim().toLowerCase();
  while (key.endsWith('/')) key = key.slice(0, -1);
  if (key.endsWith('.git')) key = key.slice(0, -4);
  return key;
}

/** Stable numeric repository id for wire shapes that need one (same URL -> same id, ignoring case, ".git" and a trailing "/"). */
export function repositoryNumericId(url: string): number {
  return hash48(`repository\n${idKeyOfUrl(url)}`);
}

/** Stable numeric owner id (GitHub owner, GitLab namespace, Bitbucket project) for a host and owner path, ignoring case. */
export function ownerNumericId(host: string, ownerPath: string): number {
  return hash48(`owner\n${normalizeHostName(host.trim())}\n${ownerPath.trim().toLowerCase()}`);
}
