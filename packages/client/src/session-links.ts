// Linking folders (and files) into an interactive session (seed contract §4.5, §9; wire reference
// §2.12): the v2 batch mount with its v1 fallback, the mounts' statuses, waiting for a mount, and
// linking a job's results, working directory or logs.
import type { SessionDataItem, SessionMount, SessionMountsReply } from '@runyard/contract';
import { FileExplorer } from './datasets/file-explorer.js';
import { ApiError, apiErrorFor, RunyardError, RunyardValueError } from './errors.js';
import { getJobLogs } from './job-data/job-logs.js';
import { getJobResults } from './job-data/job-results.js';
import { getJobWorkdir } from './job-data/job-workdir.js';
import { requireWorkspace } from './jobs-api/types.js';
import type { ApiTransport } from './api-transport.js';
import { sleep } from './sleep.js';
import { statusText } from './http-status.js';
import { MAX_SESSION_MOUNTS } from '@runyard/contract';

/** The mount payload of the v2 route: several items, folders and files. */
export interface MountPayload {
  dataItems: SessionDataItem[];
}

const mountPath = (sessionId: string, version: 'v1' | 'v2') =>
  `/api/${version}/interactive-sessions/${encodeURIComponent(sessionId)}/fuse-filesystem/mount`;

function requireIds(sessionId: string, teamId: string): void {
  if (!sessionId || typeof sessionId !== 'string') throw new RunyardValueError('Invalid session_id: must be a non-empty string');
  if (!teamId || typeof teamId !== 'string') throw new RunyardValueError('Invalid team_id: must be a non-empty string');
}

function messageOf(body: unknown): string | undefined {
  const m = (body as { message?: unknown } | null | undefined)?.message;
  return typeof m === 'string' ? m : undefined;
}

/**
 * mount_fuse_filesystem_v2: `POST /api/v2/interactive-sessions/{S}/fuse-filesystem/mount?teamId=W`
 * with `{dataItems}`; answers the status (204: mounts recorded, to be polled). A 404 whose message
 * names a session is a RunyardValueError "Session not found: S"; any other status >= 400 an ApiError
 * (a 404 without "session" means this server has no v2 route: linkFolder then falls back to v1).
 */
export async function mountFuseFilesystemV2(t: ApiTransport, sessionId: string, teamId: string, payload: MountPayload): Promise<number> {
  requireIds(sessionId, teamId);
  const path = mountPath(sessionId, 'v2');
  const res = await t.raw('POST', path, { query: { teamId }, body: payload });
  if (res.status >= 400) {
    const message = messageOf(res.body);
    if (res.status === 404 && message?.toLowerCase().includes('session')) throw new RunyardValueError(`Session not found: ${sessionId}`);
    const code = (res.body as { code?: unknown } | undefined)?.code;
    throw apiErrorFor(res.status, typeof code === 'string' ? code : undefined, message ?? statusText(res.status), 'POST', path);
  }
  return res.status;
}

/**
 * get_fuse_filesystems_status: every mount of the session, over all pages of
 * `GET /api/v1/interactive-sessions/{S}/fuse-filesystems?teamId=W`. A 401 is "Forbidden. Invalid API
 * key…", a 404 "Interactive session S not found", any other failure "Failed to get fuse filesystem
 * status: HTTP n", each a RunyardValueError.
 */
export async function getFuseFilesystemsStatus(t: ApiTransport, sessionId: string, teamId: string): Promise<SessionMount[]> {
  requireIds(sessionId, teamId);
  const path = `/api/v1/interactive-sessions/${encodeURIComponent(sessionId)}/fuse-filesystems`;
  const out: SessionMount[] = [];
  for (let page = 1; ; page++) {
    const res = await t.raw('GET', path, { query: { teamId, page, limit: MAX_SESSION_MOUNTS } });
    if (res.status === 401) throw new RunyardValueError('Forbidden. Invalid API key or insufficient permissions.');
    if (res.status === 404) throw new RunyardValueError(`Interactive session ${sessionId} not found`);
    if (res.status !== 200) throw new RunyardValueError(`Failed to get fuse filesystem status: HTTP ${res.status}`);
    const reply = res.body as SessionMountsReply;
    const items = reply?.fuseFileSystems ?? [];
    out.push(...items);
    const total = reply?.paginationMetadata?.['Pagination-Count'];
    if (!items.length || typeof total !== 'number' || out.length >= total) return out;
  }
}

export interface WaitForMountOptions {
  /** Seconds in all (default 360). */
  timeout?: number;
  /** Seconds between checks (default 2). */
  checkInterval?: number;
}

/**
 * wait_for_mount_completion: polls the session's mounts until the one named `mountName` is
 * `mounted` or `failed`, and returns it. A RunyardValueError when the time runs out, saying whether
 * the mount was never there or did not finish.
 */
export async function waitForMountCompletion(
  t: ApiTransport,
  sessionId: string,
  teamId: string,
  mountName: string,
  { timeout = 360, checkInterval = 2 }: WaitForMountOptions = {},
): Promise<SessionMount> {
  const deadline = Date.now() + timeout * 1000;
  let seen: SessionMount | undefined;
  do {
    seen = (await getFuseFilesystemsStatus(t, sessionId, teamId)).find((m) => m.mountName === mountName);
    if (seen && (seen.status === 'mounted' || seen.status === 'failed')) return seen;
    if (Date.now() + checkInterval * 1000 > deadline) break;
    await sleep(checkInterval * 1000);
  } while (Date.now() < deadline);
  throw new RunyardValueError(
    seen
      ? `Timeout waiting for mount '${mountName}' to complete after ${timeout} seconds (it is ${seen.status})`
      : `Mount '${mountName}' not found in interactive session ${sessionId}: timeout after ${timeout} seconds`,
  );
}

/** A storage URL or File Explorer path, as the item the mount routes take. */
interface LinkItem {
  path: string;
  /** "S3" or "File Explorer", as the public client names them in its messages. */
  type: 'S3' | 'File Explorer';
  isFile: boolean;
  name: string;
  dataItem: SessionDataItem;
}

/**
 * A storage URL as a mount item (seed §2.9): a file when its last segment has a dot and it has no
 * trailing slash (`S3File`), else a folder (`S3Folder`, the prefix as given). Not `s3://`, or no
 * key after the bucket, is a RunyardValueError.
 */
export function parseStoragePath(url: string): { isFile: boolean; name: string; dataItem: SessionDataItem } {
  if (!url.startsWith('s3://')) throw new RunyardValueError("Invalid S3 URL. Link must start with 's3://'");
  const rest = url.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const key = slash < 0 ? '' : rest.slice(slash + 1).replace(/^\/+/, '');
  if (!bucket || !key) throw new RunyardValueError('S3 URL must include a key after the bucket');
  const name = key.replace(/\/+$/, '').split('/').pop() ?? '';
  if (!key.endsWith('/') && name.includes('.')) {
    return { isFile: true, name, dataItem: { type: 'S3File', data: { name, s3BucketName: bucket, s3ObjectKey: key } } };
  }
  return { isFile: false, name, dataItem: { type: 'S3Folder', data: { name, s3BucketName: bucket, s3Prefix: key } } };
}

export interface LinkOptions extends WaitForMountOptions {
  /** The project File Explorer paths are in (required for them). */
  projectName?: string;
  /** Where the status lines go (the public client prints them); default: nowhere. */
  log?: (line: string) => void;
}

async function linkItems(
  t: ApiTransport,
  folders: readonly string[],
  teamId: string,
  projectName: string | undefined,
): Promise<LinkItem[]> {
  const items: LinkItem[] = [];
  const seen = new Map<string, string>();
  let datasets: Promise<FileExplorer> | undefined;
  for (const path of folders) {
    if (path.startsWith('az://')) {
      throw new RunyardValueError(
        'Azure Blob Storage paths (az://) are not supported for linking. Azure environments do not support linking folders to Interactive Analysis sessions.',
      );
    }
    let item: LinkItem;
    if (path.startsWith('s3://')) {
      item = { path, type: 'S3', ...parseStoragePath(path) };
    } else {
      if (!projectName) throw new RunyardValueError(`A project name is required to link the File Explorer path '${path}'.`);
      datasets ??= FileExplorer.open(t, teamId, projectName);
      const clean = path.replace(/^\/+|\/+$/g, '');
      const name = clean.split('/').pop() ?? '';
      const d = await datasets;
      // A folder first; a path that names a file links the file (v2 only).
      const folderId = await d.getFileOrFolderId(clean, false).catch(() => null);
      if (folderId) item = { path, type: 'File Explorer', isFile: false, name, dataItem: { kind: 'Folder', item: folderId, name } };
      else {
        const fileId = await d.getFileOrFolderId(clean, true).catch(() => null);
        if (!fileId) throw new RunyardValueError(`Folder '${name}' not found in project.`);
        item = { path, type: 'File Explorer', isFile: true, name, dataItem: { kind: 'File', item: fileId, name } };
      }
    }
    const other = seen.get(item.name);
    if (other !== undefined) {
      throw new RunyardValueError(
        `Duplicate mount name '${item.name}' detected. The folders '${other}' and '${path}' would both be mounted with the same name. Please use folders with unique names.`,
      );
    }
    seen.set(item.name, path);
    items.push(item);
  }
  return items;
}

/** The public client's reading of a v2 failure other than "no v2 route" (its _handle_mount_error). */
function mountFailure(e: ApiError, type: string): RunyardValueError {
  const text = e.message.toLowerCase();
  if (e.status === 403 || text.includes('forbidden')) {
    return new RunyardValueError(
      text.includes('already exists') || text.includes('mounted')
        ? `Provided ${type} folder already exists with 'mounted' status`
        : 'Interactive Analysis session is not active or access denied',
    );
  }
  if (e.status === 401) return new RunyardValueError('Forbidden. Invalid API key or insufficient permissions.');
  if (text.includes('invalid supported dataitem foldertype'))
    return new RunyardValueError(`Invalid Supported DataItem '${type}' folderType. Virtual folders cannot be linked.`);
  if (e.serverMessage === 'Request failed with status code 403') return new RunyardValueError('Interactive Analysis session is not active');
  if (e.status === 400) return new RunyardValueError(`Cannot link folder: ${e.message}`);
  return new RunyardValueError(`Failed to mount ${type} folder: ${e.message}`);
}

/** One folder through the v1 route, with the public client's messages. */
async function mountV1(t: ApiTransport, item: LinkItem, sessionId: string, teamId: string): Promise<number> {
  const res = await t.raw('POST', mountPath(sessionId, 'v1'), { query: { teamId }, body: { dataItem: item.dataItem } });
  if (res.status < 400) return res.status;
  const message = messageOf(res.body);
  if (res.status === 403) throw new RunyardValueError(`Provided ${item.type} folder already exists with 'mounted' status`);
  if (res.status === 401) throw new RunyardValueError('Forbidden. Invalid API key or insufficient permissions.');
  if (res.status === 400) {
    if (message === 'Invalid Supported DataItem folderType. Supported values are S3Folder')
      throw new RunyardValueError(`Invalid Supported DataItem '${item.type}' folderType. Virtual folders cannot be linked.`);
    if (message === 'Request failed with status code 403') throw new RunyardValueError('Interactive Analysis session is not active');
    throw new RunyardValueError(`Cannot link folder${message ? `: ${message}` : ''}`);
  }
  throw new RunyardValueError(`Failed to mount folder: HTTP ${res.status}`);
}

/**
 * link_folders_batch: the folders (storage URLs, File Explorer paths; files too) in one v2 request;
 * when this server has no v2 route (a 404 that does not name a session), one v1 request per
 * folder, a file then being an error. Then each mount is waited for. True when every one is
 * `mounted`; false when one failed or its wait ran out (those are logged, as the public client
 * prints them). Refusals are RunyardValueErrors with the public client's messages.
 */
export async function linkFoldersBatch(
  t: ApiTransport,
  folders: readonly string[],
  sessionId: string,
  teamId: string,
  options: LinkOptions = {},
): Promise<boolean> {
  requireIds(sessionId, teamId);
  requireWorkspace(teamId);
  if (!folders.length) throw new RunyardValueError('No folders provided');
  const log = options.log ?? (() => undefined);
  const items = await linkItems(t, folders, teamId, options.projectName);
  let status: number | null;
  try {
    status = await mountFuseFilesystemV2(t, sessionId, teamId, { dataItems: items.map((i) => i.dataItem) });
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    const noV2 = e.status === 404 || /404|not found/i.test(e.message);
    if (!noV2) throw mountFailure(e, items[0]!.type);
    status = null;
  }
  if (status === null) {
    const file = items.find((i) => i.isFile);
    if (file) {
      throw new RunyardValueError(
        `'${file.path}' is a file: this server links only folders (its v2 mount, which takes files, is not available).`,
      );
    }
    const done: string[] = [];
    for (const item of items) {
      try {
        status = await mountV1(t, item, sessionId, teamId);
        done.push(item.path);
      } catch (e) {
        if (done.length && e instanceof RunyardError) {
          throw new RunyardValueError(
            `${e.message}\n\nNote: The following folders were successfully mounted before this error: ${done.join(', ')}`,
          );
        }
        throw e;
      }
    }
  }
  if (status !== 204) return false;
  let all = true;
  for (const item of items) {
    const shown = item.path;
    try {
      const final = await waitForMountCompletion(t, sessionId, teamId, item.name, options);
      if (final.status === 'mounted') log(`Successfully mounted ${item.type} ${item.isFile ? 'file' : 'folder'}: ${shown}`);
      else {
        all = false;
        log(`Failed to mount ${item.type} ${item.isFile ? 'file' : 'folder'}: ${shown}`);
        log(`  Error: ${final.errorMessage ?? 'Unknown error'}`);
      }
    } catch (e) {
      if (!(e instanceof RunyardValueError)) throw e;
      all = false;
      log(`Warning: Could not verify mount status - ${e.message}`);
      log('  The linking request was submitted, but verification failed.');
    }
  }
  return all;
}

/** link_folder: one folder (or file), as linkFoldersBatch. */
export function linkFolder(
  t: ApiTransport,
  folder: string,
  sessionId: string,
  teamId: string,
  options: LinkOptions = {},
): Promise<boolean> {
  return linkFoldersBatch(t, [folder], sessionId, teamId, options);
}

/** What linking one of a job's folders did (the public client prints it and returns nothing). */
export interface JobLinkResult {
  /** The storage URL linked; null when there was nothing to link or it could not be found. */
  path: string | null;
  /** True once the mount is verified `mounted`. */
  mounted: boolean;
  /** What the public client prints. */
  message: string;
}

export interface JobLinkOptions extends WaitForMountOptions {
  log?: (line: string) => void;
}

type JobFolder = 'results' | 'workdir' | 'logs';

const WHAT: Record<JobFolder, { label: string; short: string }> = {
  results: { label: 'results directory', short: 'results' },
  workdir: { label: 'working directory', short: 'workdir' },
  logs: { label: 'logs directory', short: 'logs' },
};

/**
 * link_job_results / link_job_workdir / link_job_logs: the job's folder found as get_job_results,
 * get_job_workdir and get_job_logs find it (for logs, the folder of the first log file), then
 * linked. Never throws for what the public client only prints (a job not completed, results
 * deleted, a refused link): the result says what happened.
 */
export async function linkJobFolder(
  t: ApiTransport,
  which: JobFolder,
  jobId: string,
  workspaceId: string,
  sessionId: string,
  options: JobLinkOptions = {},
): Promise<JobLinkResult> {
  const log = options.log ?? (() => undefined);
  const { label, short } = WHAT[which];
  let path: string | null = null;
  try {
    if (which === 'results') path = await getJobResults(t, jobId, workspaceId);
    else if (which === 'workdir') path = (await getJobWorkdir(t, jobId, workspaceId)).trim();
    else {
      const logs = await getJobLogs(t, jobId, workspaceId);
      const first = Object.values(logs)[0];
      path = first ? first.split('/').slice(0, -1).join('/') : null;
    }
    if (!path) {
      const message = `No ${which === 'workdir' ? 'working directory' : which} found to link.`;
      log(`\t${message}`);
      return { path: null, mounted: false, message };
    }
    log(`\tLinking ${label}...`);
    const mounted = await linkFolder(t, path, sessionId, workspaceId, options);
    const message = mounted ? `Successfully mounted S3 folder: ${path}` : `Failed to mount S3 folder: ${path}`;
    return { path, mounted, message };
  } catch (e) {
    if (!(e instanceof RunyardError)) throw e;
    const text = e.message;
    const cannot =
      e.name === 'JobNotCompletedError' ||
      /results are not available|deleted|removed|not yet available|initializing|not available/i.test(text);
    const message = `${cannot ? 'Cannot' : 'Failed to'} link ${short}: ${text}`;
    log(`\t${message}`);
    return { path, mounted: false, message };
  }
}
