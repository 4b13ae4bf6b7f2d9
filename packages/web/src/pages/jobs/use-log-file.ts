import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { parseStorageAddress, STORAGE_OBJECT_ROUTE, type RunyardApi } from '@runyard/client/core';
import { useApi } from '../../api/session';
import { isFinished } from './job-format';
import type { JobView } from './job-view';

/** The engine's own diagnostics in a job's logs folder (a WDL job's engine writes them there). */
export const ENGINE_LOG = 'engine.log';

/** The most of a log file a page reads: its last 2 MB (the start of a longer one is left out; the file keeps it all). */
export const MAX_LOG_BYTES = 2_000_000;

/** How often a running job's logs folder is listed again (a log file may appear). */
const LIST_AGAIN_MS = 15_000;

/** A file of a job's logs folder, where the storage object route finds it; `size` as listed. */
export interface LogFile {
  name: string;
  bucket: string;
  key: string;
  size: number;
}

/** The end of a log file as read. */
export interface LogTail {
  text: string;
  /** The start of the file is left out (it is larger than MAX_LOG_BYTES). */
  trimmed: boolean;
  readAt: string;
}

/** The query of a started job's logs folder, as a storage URL (the Files card browses it; the Log card lists it). */
export function logsFolderQuery(api: RunyardApi, job: JobView) {
  return {
    queryKey: ['job-logs-folder', job.id, job.workspaceId],
    queryFn: () => api.getJobLogsFolder(job.id, job.workspaceId),
    enabled: Boolean(job.startTime),
    staleTime: Infinity,
  };
}

/**
 * The files of a started job's logs folder (one level): listed again every 15 s while the job
 * runs and once when it ends, the last listing shown meanwhile.
 */
export function useJobLogFiles(job: JobView) {
  const api = useApi();
  const finished = isFinished(job.status);
  const folder = useQuery(logsFolderQuery(api, job));
  return useQuery({
    queryKey: ['job-log-files', job.workspaceId, folder.data, finished],
    queryFn: async (): Promise<LogFile[]> => {
      const at = parseStorageAddress(folder.data!);
      const entries = await api.getStorageContents(at.cloudName, at.cloudMeta, at.container, at.path, job.workspaceId);
      return entries.filter((e) => !e.isDir).map((e) => ({ name: e.name, bucket: at.container, key: e.path, size: Number(e.size ?? 0) }));
    },
    enabled: Boolean(folder.data),
    placeholderData: keepPreviousData,
    refetchInterval: finished ? false : LIST_AGAIN_MS,
  });
}

/**
 * The end of a log file (at most MAX_LOG_BYTES), read from the storage object route with the
 * session's cookie (what the StorageBrowser's download links fetch); read again when the job
 * ends, and on `refetch` (the page's Refresh). The last text stays shown while it is read again.
 */
export function useLogTail(job: JobView, file: LogFile) {
  const api = useApi();
  const finished = isFinished(job.status);
  return useQuery({
    queryKey: ['job-log-tail', job.workspaceId, file.bucket, file.key, finished],
    queryFn: ({ signal }) => readTail(api, job.workspaceId, file, signal),
    placeholderData: keepPreviousData,
    staleTime: finished ? Infinity : 5_000,
    refetchOnWindowFocus: false,
  });
}

/**
 * `GET /api/runyard/storage/object` of the file: whole when it was listed small enough, else its
 * last MAX_LOG_BYTES (`Range: bytes=-N`, only for a file listed larger: there is no suffix of an
 * empty file to serve). The file may have grown since it was listed: only the last MAX_LOG_BYTES of
 * what arrives are kept. A cut start loses its partial first line.
 */
async function readTail(api: RunyardApi, workspaceId: string, file: LogFile, signal: AbortSignal): Promise<LogTail> {
  const reply = await api.transport.stream(STORAGE_OBJECT_ROUTE, {
    query: { bucket: file.bucket, key: file.key, teamId: workspaceId },
    headers: {
      accept: '*/*',
      // The route's reply has a Last-Modified and no Cache-Control: a browser may reuse it for a while, past a change.
      'cache-control': 'no-cache',
      ...(file.size > MAX_LOG_BYTES && { range: `bytes=-${MAX_LOG_BYTES}` }),
    },
    signal,
  });
  // `bytes <first>-<last>/<size>`: a part that does not start at 0 left the start out.
  const range = /^bytes (\d+)-/.exec(String(reply.headers['content-range'] ?? ''));
  let trimmed = reply.statusCode === 206 && Number(range?.[1] ?? 0) > 0;
  const chunks: Uint8Array[] = [];
  let held = 0;
  for await (const chunk of reply) {
    chunks.push(chunk);
    held += chunk.length;
    while (chunks.length > 1 && held - chunks[0]!.length >= MAX_LOG_BYTES) {
      held -= chunks.shift()!.length;
      trimmed = true;
    }
  }
  const bytes = new Uint8Array(held);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  const kept = bytes.length > MAX_LOG_BYTES ? bytes.subarray(bytes.length - MAX_LOG_BYTES) : bytes;
  trimmed ||= kept.length < bytes.length;
  let text = new TextDecoder().decode(kept);
  if (trimmed) {
    const newline = text.indexOf('\n');
    if (newline >= 0) text = text.slice(newline + 1);
  }
  return { text, trimmed, readAt: new Date().toISOString() };
}
