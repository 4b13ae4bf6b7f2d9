import path from 'node:path';

/** The default bucket of a workspace in the local blob store (issue 5 adds S3 and Azure). */
export function defaultBucketOf(workspaceId: string): string {
  return `runyard-${workspaceId}`;
}

export interface JobPaths {
  bucket: string;
  /** `<workspace>/jobs/<jobId>`: the key prefix of the job's data in its bucket. */
  prefix: string;
  /** The job's directory in the local store: `<dataDir>/storage/<bucket>/<prefix>`. */
  root: string;
  work: string;
  logs: string;
  results: string;
  /** Control files of attempts (pid, exit code), outside the job's storage. */
  control: string;
}

/** Where a job's logs, results and work directory live: `<bucket>/<workspace>/jobs/<jobId>/{logs,results,work}`. */
export function jobPaths(dataDir: string, workspaceId: string, jobId: string): JobPaths {
  const bucket = defaultBucketOf(workspaceId);
  const prefix = `${workspaceId}/jobs/${jobId}`;
  const root = path.join(dataDir, 'storage', bucket, workspaceId, 'jobs', jobId);
  return {
    bucket,
    prefix,
    root,
    work: path.join(root, 'work'),
    logs: path.join(root, 'logs'),
    results: path.join(root, 'results'),
    control: path.join(dataDir, 'run', jobId),
  };
}
