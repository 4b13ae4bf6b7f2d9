import { useRef, useState, type FormEvent } from 'react';
import { useSession } from '../../api/session';
import { explorerOf } from './explorer-api';
import { ErrorNotice } from '../../components/error-notice';
import { formatBytes } from './format';
import { uploadToDataset } from './upload-xhr';

type Progress = { name: string; loaded: number; total: number };

/** Uploads one file into Data or a virtual folder in it, with a progress bar and a way to cancel. */
export function UploadForm({
  teamId,
  projectId,
  destPath,
  onUploaded,
}: {
  teamId: string;
  projectId: string;
  /** The folder's path in the project: Data, or a folder made inside it. */
  destPath: string;
  onUploaded(name: string, size: number): void;
}) {
  const { api, csrfToken } = useSession();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<unknown>(null);
  const cancel = useRef<AbortController | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    setError(null);
    const controller = new AbortController();
    cancel.current = controller;
    setProgress({ name: file.name, loaded: 0, total: file.size });
    try {
      // The SDK checks the name and finds the folder's id before any byte is sent.
      const url = await explorerOf(api, teamId, projectId).uploadUrl(destPath, file.name);
      await uploadToDataset({
        url,
        file,
        csrfToken: csrfToken(),
        signal: controller.signal,
        onProgress: (loaded, total) => setProgress({ name: file.name, loaded, total }),
      });
      onUploaded(file.name, file.size);
      setFile(null);
      if (input.current) input.current.value = '';
    } catch (e) {
      setError(e);
    } finally {
      cancel.current = null;
      setProgress(null);
    }
  }

  const percent = progress && progress.total > 0 ? Math.floor((progress.loaded / progress.total) * 100) : 0;
  return (
    <form className="card inline-card" onSubmit={(e) => void submit(e)} aria-labelledby="upload-title">
      <h2 id="upload-title">Upload a file</h2>
      <p className="muted">Into {destPath}.</p>
      <div className="form-grid">
        <label htmlFor="upload-file">File to upload</label>
        <input
          ref={input}
          id="upload-file"
          type="file"
          disabled={progress !== null}
          onChange={(e) => {
            setError(null);
            setFile(e.target.files?.[0] ?? null);
          }}
        />
      </div>
      <div className="upload-progress" aria-live="polite">
        {progress && (
          <>
            <label htmlFor="upload-progress">
              Uploading {progress.name}: {percent}% ({formatBytes(progress.loaded)} of {formatBytes(progress.total)})
            </label>
            <progress id="upload-progress" max={100} value={percent}>
              {percent}%
            </progress>
          </>
        )}
      </div>
      {error !== null && <ErrorNotice error={error} title="Upload failed" />}
      <div className="actions">
        <button type="submit" disabled={!file || progress !== null}>
          Upload
        </button>
        {progress && (
          <button type="button" className="secondary" onClick={() => cancel.current?.abort()}>
            Cancel upload
          </button>
        )}
      </div>
    </form>
  );
}
