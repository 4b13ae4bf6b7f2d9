// The job-data errors of the public client (wire reference §2.1), as RunyardValueErrors with its messages.
import { RunyardValueError } from '../errors.js';

/** Results were asked for a job that has not completed (the public client's JoBNotCompletedException). */
export class JobNotCompletedError extends RunyardValueError {
  override name = 'JobNotCompletedError';
  constructor(
    readonly jobId: string,
    readonly status: string,
  ) {
    super(`Job ${jobId} has status ${status}. Results are only available for jobs with status "completed"`);
  }
}

/** The workspace's storage is neither S3-like nor Azure (the public client's NoCloudForWorkspaceException). */
export class NoCloudForWorkspaceError extends RunyardValueError {
  override name = 'NoCloudForWorkspaceError';
  constructor(readonly workspaceId: string) {
    super(`Workspace ID ${workspaceId} is not associated with supported cloud providers. Check the workspace ID`);
  }
}

/** The results prefix of a completed job holds no directory. */
export class NoResultDirectoriesError extends RunyardValueError {
  override name = 'NoResultDirectoriesError';
  constructor() {
    super('No result directories found for this job');
  }
}
