import path from 'node:path';
import { BlobKeyError, type BlobStore } from '../storage/blob-store.js';
import { checkBucket, checkKey } from '../storage/keys.js';
import { isPathInside } from '../storage/local.js';
import { defaultBucketOf } from '../storage/storage-deps.js';

// Kept with the storage rules, below staging; re-exported for the services that name job folders.
export { defaultBucketOf };

export interface JobPaths {
  bucket: string;
  /** `<workspace>/jobs/<jobId>`: the key prefix of the job's data in its bucket. */
  prefix: string;
  /** The job's local directory: in the local store `<dataDir>/storage/<bucket>/<prefix>`; on S3 and Azure its copy under `<dataDir>/scratch`. */
  root: string;
  work: string;
  logs: string;
  results: string;
  /** Bucket and key prefix of the work directory in the store: `<prefix>/work`, or for a resumed job its parent's work folder. */
  workBucket: string;
  workPrefix: string;
  /** Control files of attempts (pid, exit code), outside the job's storage. */
  control: string;
  /** Inputs staged for the task (downloaded files, links to files of a virtual folder): outside the job's storage. */
  inputs: string;
}

/** Where a job's logs, results and work directory live in the local store: `<bucket>/<workspace>/jobs/<jobId>/{logs,results,work}`. */
export function jobPaths(dataDir: string, workspaceId: string, jobId: string): JobPaths {
  const bucket = defaultBucketOf(workspaceId);
  const prefix = `${workspaceId}/jobs/${jobId}`;
  const root = path.join(dataDir, 'storage', bucket, workspaceId, 'jobs', jobId);
  const control = controlDirOf(dataDir, jobId);
  return {
    bucket,
    prefix,
    root,
    work: path.join(root, 'work'),
    logs: path.join(root, 'logs'),
    results: path.join(root, 'results'),
    workBucket: bucket,
    workPrefix: `${prefix}/work`,
    control,
    inputs: path.join(control, 'inputs'),
  };
}

/** `<dataDir>/scratch`: where tasks work on local copies of folders kept in S3 or Azure. */
export function scratchRoot(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'scratch');
}

/**
 * The local directory of a folder of the store (`bucket`, `prefix`): on the local store the
 * folder itself; on S3 and Azure `<dataDir>/scratch/<bucket>/<prefix>`, a copy that is pulled
 * from and pushed to the store. Bucket and prefix are checked by the store's key rules.
 */
export async function localDirOf(dataDir: string, blobs: BlobStore, bucket: string, prefix: string): Promise<string> {
  checkBucket(bucket);
  checkKey(prefix);
  if (blobs.localPath) return blobs.localPath(bucket, prefix);
  const root = scratchRoot(dataDir);
  const dir = path.resolve(root, bucket, ...prefix.split('/'));
  if (!isPathInside(root, dir) || dir === root) throw new BlobKeyError(`"${bucket}/${prefix}" leaves the scratch directory`);
  return dir;
}

/** What taskPaths needs of a job row. */
export interface JobLocation {
  id: string;
  workspace_id: string;
  work_bucket?: string | null;
  work_prefix?: string | null;
}

/**
 * Where a job's task runs and writes: its logs, results and work directories as local
 * directories (see localDirOf), the work directory being its parent's for a resumed job.
 */
export async function taskPaths(dataDir: string, blobs: BlobStore, job: JobLocation): Promise<JobPaths> {
  const base = jobPaths(dataDir, job.workspace_id, job.id);
  const root = await localDirOf(dataDir, blobs, base.bucket, base.prefix);
  const workBucket = job.work_bucket || base.bucket;
  const workPrefix = job.work_prefix || base.workPrefix;
  const work =
    workBucket === base.bucket && workPrefix === base.workPrefix
      ? path.join(root, 'work')
      : await localDirOf(dataDir, blobs, workBucket, workPrefix);
  return { ...base, root, work, logs: path.join(root, 'logs'), results: path.join(root, 'results'), workBucket, workPrefix };
}

/** True when the job runs in the work directory of another job (a resume). */
export function isResumedWorkDir(paths: JobPaths): boolean {
  return paths.workBucket !== paths.bucket || paths.workPrefix !== `${paths.prefix}/work`;
}

/** `<dataDir>/run/<jobId>`: a job's control files (JobPaths.control). */
export function controlDirOf(dataDir: string, jobId: string): string {
  return path.join(dataDir, 'run', jobId);
}

/**
 * Where an attempt's task may write, when it fails, one paragraph that says why (a WDL engine: the
 * failing call and its error). It becomes the job's failure message (settle.ts).
 */
export function failureFileOf(control: string, attempt: number): string {
  return path.join(control, `failure-${attempt}.txt`);
}
