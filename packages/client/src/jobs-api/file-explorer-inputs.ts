// Container-job values and parameters files that name File Explorer paths (seed contract §2.4):
// the path is looked up through the datasets routes, project by project, as the public client does.
import { FileExplorer } from '../datasets/file-explorer.js';
import { RunyardValueError } from '../errors.js';
import {
  buildDataItemParameter,
  buildGlobPatternParameter,
  buildTextParameter,
  classifyParameterValue,
  parseParameter,
  type JobParameter,
} from '../jobs/parameters.js';
import type { WorkflowType } from '../jobs/job-types.js';
import type { ApiTransport } from '../api-transport.js';

/** Resolves File Explorer paths of one job's inputs; a project's File Explorer is opened once. */
export class FileExplorerInputs {
  readonly #opened = new Map<string, Promise<FileExplorer>>();

  constructor(
    private readonly t: ApiTransport,
    private readonly workspaceId: string,
    /** The job's project: paths that name no project are looked up there. */
    private readonly projectName: string,
  ) {}

  #datasets(projectName = this.projectName): Promise<FileExplorer> {
    let d = this.#opened.get(projectName);
    if (!d) this.#opened.set(projectName, (d = FileExplorer.open(this.t, this.workspaceId, projectName)));
    return d;
  }

  /** The id of the file at a File Explorer path (`Data/dir/file.csv`). */
  async fileId(path: string, projectName?: string): Promise<string> {
    const id = await (await this.#datasets(projectName)).getFileOrFolderId(path, true);
    if (!id) throw new RunyardValueError(`'${path}' is inside a storage folder and has no File Explorer id; give its s3:// or az:// URL.`);
    return id;
  }

  /** The id of the folder (or dataset) at a File Explorer path (`Data/dir`, or `Data`). */
  async folderId(path: string, projectName?: string): Promise<string> {
    const id = await (await this.#datasets(projectName)).getFileOrFolderId(path, false);
    if (!id) throw new RunyardValueError(`'${path}' is inside a storage folder and has no File Explorer id.`);
    return id;
  }

  /**
   * One `-p name=value` as a parameter object: for container jobs a File Explorer file becomes a
   * dataItem and a glob a globPattern over its folder; everything else is text.
   */
  async parameter(text: string, workflowType: WorkflowType): Promise<JobParameter> {
    const { prefix, name, value } = parseParameter(text, workflowType);
    if (workflowType !== 'docker') return buildTextParameter(prefix, name, value);
    const kind = classifyParameterValue(value);
    if (kind.kind === 'dataItem') return buildDataItemParameter(prefix, name, await this.fileId(kind.path, kind.projectName));
    if (kind.kind === 'globPattern') {
      return buildGlobPatternParameter(prefix, name, kind.pattern, await this.folderId(kind.folderPath, kind.projectName));
    }
    return buildTextParameter(prefix, name, value);
  }
}
