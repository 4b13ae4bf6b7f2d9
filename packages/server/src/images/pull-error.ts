/** Why a pull failed, for the job's status message; each kind has its own wording below. */
export type ImagePullErrorKind = 'invalid-reference' | 'not-found' | 'unauthorized' | 'unreachable' | 'disk-full' | 'failed';

export class ImagePullError extends Error {
  override name = 'ImagePullError';
  constructor(
    readonly kind: ImagePullErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** What a failed skopeo or umoci run was doing, to say it in the message. */
export interface PullContext {
  image: string;
  registry: string;
  /** The user whose credentials were tried, or null for an anonymous pull. */
  username: string | null;
  /** Where the cache is, for a disk-full message. */
  cacheDir: string;
  /** Strings that must never appear in a message (the password, its base64 form). */
  secrets: readonly string[];
}

// The registry's and the transport's words, as skopeo 1.9 (containers/image) prints them.
const NOT_FOUND = /manifest unknown|name unknown|not found|no such image/i;
const UNAUTHORIZED =
  /unauthorized|authentication required|access to the resource is denied|denied:|incorrect username or password|status 401|status 403/i;
const UNREACHABLE =
  /connection refused|no such host|dial tcp|i\/o timeout|network is unreachable|no route to host|TLS handshake|server gave HTTP response|certificate|connection reset/i;
const DISK_FULL = /no space left on device|ENOSPC|disk quota exceeded/i;

/** The ImagePullError for a tool's failure, read from what it printed on stderr. */
export function classifyPullFailure(stderr: string, context: PullContext): ImagePullError {
  const detail = redact(lastMessage(stderr), context.secrets);
  const { image, registry } = context;
  const who = context.username === null ? 'an anonymous pull (no credentials for it)' : `the user "${context.username}"`;
  // Disk first: a full disk during a copy can also break the connection.
  if (DISK_FULL.test(stderr))
    return new ImagePullError('disk-full', `no space left in the image cache (${context.cacheDir}) while pulling ${image}: ${detail}`);
  if (UNAUTHORIZED.test(stderr)) {
    return new ImagePullError('unauthorized', `the registry ${registry} refused ${image} to ${who}: ${detail}`);
  }
  if (NOT_FOUND.test(stderr))
    return new ImagePullError('not-found', `the image ${image} was not found at ${registry} (no such repository or tag): ${detail}`);
  if (UNREACHABLE.test(stderr)) return new ImagePullError('unreachable', `the registry ${registry} could not be reached: ${detail}`);
  return new ImagePullError('failed', `pulling ${image} from ${registry} failed: ${detail}`);
}

/** skopeo's last line, unwrapped from its `time=... level=fatal msg="..."` form. */
function lastMessage(stderr: string): string {
  const lines = stderr.trim().split('\n').filter(Boolean);
  const last = lines.at(-1) ?? '(it printed nothing)';
  const msg = /level=\w+ msg="((?:[^"\\]|\\.)*)"/.exec(last);
  const text = msg ? msg[1].replace(/\\"/g, '"') : last;
  // skopeo 1.9 puts every inspect failure under this misleading prefix.
  return text.replace(/^Error parsing image name "[^"]*": /, '');
}

/** Removes every secret from text: a tool's message is shown to users and kept in logs. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]');
  return out;
}
