// The node SDK (what the CLI uses): every operation of RunyardApi over the node transport (API key,
// TLS options, timeouts), and those that need node: local files, downloads, streamed uploads.
import { RunyardApi } from './api.js';
import { Datasets } from './datasets/datasets.js';
import { StreamUploader } from './datasets/upload.js';
import { parseStorageAddress } from './job-data/storage-address.js';
import { readJobConfigFile } from './jobs/job-config.js';
import { saveJobListToCsv } from './jobs-api/job-csv.js';
import type { JobDocument } from './jobs-api/types.js';
import { downloadFolder, downloadObject, type Downloaded, type DownloadOptions, type StoredObject } from './storage/download.js';
import { Transport, type Verify } from './transport.js';

export type { FetchIdByNameOptions } from './api.js';

export interface ClientOptions {
  /** Base URL of the server; may carry a path prefix and a trailing slash. */
  platformUrl: string;
  apikey: string;
  /** Token for the workflow-engine server routes; the API key when absent. */
  engineToken?: string | null;
  /** TLS: true (default) verifies, false does not, a string is a CA certificate file. */
  verify?: Verify;
  timeoutMs?: number;
}

/** The Runyard SDK for node: one method per operation of the seed contract. */
export class RunyardClient extends RunyardApi {
  declare readonly transport: Transport;
  readonly platformUrl: string;
  readonly verify: Verify;
  readonly #engineToken: string;
  /** Streams files to the upload route (it needs the key, which the transport keeps to itself). */
  readonly #uploader: StreamUploader;

  constructor(options: ClientOptions) {
    super(new Transport(options), { engineToken: options.engineToken, jobConfigReader: readJobConfigFile });
    this.platformUrl = options.platformUrl.replace(/\/+$/, '');
    this.verify = options.verify ?? true;
    this.#engineToken = options.engineToken || options.apikey;
    this.#uploader = new StreamUploader(options);
  }

  /** The token sent to workflow-engine routes (the API key when no engine token was given). */
  get engineToken(): string {
    return this.#engineToken;
  }

  saveJobListToCsv(jobs: JobDocument[], filename = 'my_jobs.csv', allFields = false): Promise<{ filename: string; rows: number }> {
    return saveJobListToCsv(jobs, filename, allFields);
  }

  /**
   * Downloads one object of the workspace's storage to `file` (`GET /api/runyard/storage/object`):
   * skipped when the file already has its size, resumed from `<file>.part` when a download stopped.
   */
  downloadObject(workspaceId: string, object: StoredObject, file: string, options?: DownloadOptions): Promise<Downloaded> {
    return downloadObject(this.transport, workspaceId, object, file, options);
  }

  /** Downloads every object under a storage URL (`s3://bucket/prefix` or `az://...`) into `dir`, keeping their paths. */
  downloadFolder(
    workspaceId: string,
    url: string,
    dir: string,
    options?: DownloadOptions & { onListed?: (objects: StoredObject[]) => void },
  ): Promise<Downloaded[]> {
    const a = parseStorageAddress(url);
    return downloadFolder(this.transport, workspaceId, { name: a.cloudName, meta: a.cloudMeta }, a.container, a.path, dir, options);
  }

  /** The File Explorer of a project (found by name with the projects search unless its id is given), with uploads of local files. */
  override datasets(workspaceId: string, projectName: string, options: { projectId?: string } = {}): Promise<Datasets> {
    return Datasets.open(this.transport, workspaceId, projectName, { ...options, uploader: this.#uploader });
  }
}
