// The contract's CSRF_HEADER, written out: importing a value of the contract would bring its schemas into the bundle.
const CSRF_HEADER = 'x-runyard-csrf';

/** A refused upload, with the server's status, code and message (errors.ts's statusOf reads `status`). */
export class UploadError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface UploadRequest {
  /** The upload route's path and query (the SDK's FileExplorer.uploadUrl). */
  url: string;
  file: Blob;
  csrfToken: string | undefined;
  onProgress(loaded: number, total: number): void;
  signal?: AbortSignal;
}

/**
 * Sends a file to `POST /api/runyard/datasets/upload` (the route the SDK's StreamUploader uses) as
 * the raw body, to the URL the SDK made for it. XMLHttpRequest, because fetch reports no upload progress; the session cookie
 * authenticates (same origin) and the CSRF header makes the write acceptable.
 */
export function uploadToDataset(r: UploadRequest): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', r.url);
    xhr.withCredentials = true;
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.setRequestHeader('accept', 'application/json');
    if (r.csrfToken) xhr.setRequestHeader(CSRF_HEADER, r.csrfToken);
    xhr.upload.onprogress = (e) => r.onProgress(e.loaded, e.lengthComputable ? e.total : r.file.size);
    xhr.onload = () => {
      let body: { message?: unknown; code?: unknown } | undefined;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body);
      const message = typeof body?.message === 'string' ? body.message : `The upload failed (HTTP ${xhr.status}).`;
      reject(new UploadError(message, xhr.status, typeof body?.code === 'string' ? body.code : undefined));
    };
    xhr.onerror = () => reject(new UploadError('The upload failed: the server could not be reached or closed the connection.'));
    xhr.onabort = () => reject(new UploadError('The upload was cancelled.'));
    r.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(r.file);
  });
}
