// A job bound to its workspace, for code that follows one job: `client.job(id, workspaceId).wait()`.
import type { ApiTransport } from '../api-transport.js';
import { abortJob } from './abort.js';
import { getJobRequestPayload, getJobStatus } from './job-read.js';
import type { JobDocument } from './types.js';
import { waitJobCompletion, type JobCompletion, type WaitOptions } from './wait.js';

export class JobHandle {
  constructor(
    private readonly transport: ApiTransport,
    readonly id: string,
    readonly workspaceId: string,
  ) {}

  /** The job document. */
  status(): Promise<JobDocument> {
    return getJobStatus(this.transport, this.id, this.workspaceId);
  }

  /** Polls until the job finishes or the wait time passes (see waitJobCompletion). */
  wait(options?: WaitOptions): Promise<JobCompletion> {
    return waitJobCompletion(this.transport, this.id, this.workspaceId, options);
  }

  abort(force = false): Promise<unknown> {
    return abortJob(this.transport, this.id, this.workspaceId, force);
  }

  /** The body the job was submitted with. */
  payload(): Promise<Record<string, unknown>> {
    return getJobRequestPayload(this.transport, this.id, this.workspaceId);
  }
}
