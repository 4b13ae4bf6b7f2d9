// The File Explorer of one project with the upload of local files (node only: the file is streamed
// from disk); listing and changes are FileExplorer's.
import path from 'node:path';
import type { FileItem } from '@runyard/contract';
import type { ApiTransport } from '../api-transport.js';
import { RunyardValueError } from '../errors.js';
import { FileExplorer, projectIdOf, UPLOAD_ROUTE } from './file-explorer.js';
import type { StreamUploader } from './upload.js';

export { checkName, destinationOf, FileExplorer, type Destination, type FoundItem } from './file-explorer.js';

export class Datasets extends FileExplorer {
  readonly #uploader: StreamUploader | undefined;

  /** Use `Datasets.open` (or `client.datasets`), which finds the project's id first. */
  constructor(t: ApiTransport, workspaceId: string, projectName: string, projectId: string, uploader?: StreamUploader) {
    super(t, workspaceId, projectName, projectId);
    this.#uploader = uploader;
  }

  /** `GET /api/v2/projects?teamId=W&search=NAME` (unless the project id is given): the helper for that project. */
  static override async open(
    t: ApiTransport,
    workspaceId: string,
    projectName: string,
    options: { projectId?: string; uploader?: StreamUploader } = {},
  ): Promise<Datasets> {
    return new Datasets(t, workspaceId, projectName, await projectIdOf(t, workspaceId, projectName, options.projectId), options.uploader);
  }

  /**
   * Uploads a local file into `Data` or a virtual folder inside it (`destPath`, a folder path
   * starting with `Data`), named as the local file unless `name` is given: the file is streamed to
   * `POST /api/runyard/datasets/upload?teamId=W&projectId=P[&parentId=F]&name=N`. The new file.
   */
  async uploadFile(localPath: string, destPath: string, options: { name?: string } = {}): Promise<FileItem> {
    if (!this.#uploader) throw new RunyardValueError('This Datasets helper cannot upload: make it with client.datasets().');
    const query = await this.uploadQuery(destPath, options.name ?? path.basename(localPath));
    return this.#uploader.postFile<FileItem>(UPLOAD_ROUTE, query, localPath);
  }
}
