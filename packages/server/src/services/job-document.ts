import type { Kysely, Selectable } from 'kysely';
import type { Database, HpcClusterTable, JobTable, QueueTable } from '../store/schema.js';
import { jobPaths } from '../scheduler/job-paths.js';
import { usesFusionFileSystem } from '../scheduler/job-options.js';
import { hpcClusterKey } from './job-hpc-cluster.js';
import { jobFolderInfo, jobFolderKeys, type JobFolderInfo } from './job-data.js';
import { parameterExpander } from './job-parameter-items.js';
import { queueToWire } from './queues.js';
import { workflowToWire, type WorkflowRow } from './workflows.js';

type JobRow = Selectable<JobTable>;

interface Related {
  projects: Map<string, { id: string; name: string; user_id: string; workspace_id: string; created_at: string; updated_at: string }>;
  workflows: Map<string, WorkflowRow>;
  users: Map<string, { id: string; name: string; surname: string; email: string }>;
  queues: Map<string, Selectable<QueueTable>>;
  /** The HPC clusters the jobs run on. */
  clusters: Map<string, Selectable<HpcClusterTable>>;
  /** The jobs' results and work folders. */
  folders: Map<string, JobFolderInfo>;
  /** A job's parameters with their files and folders expanded. */
  parameters: (job: JobRow) => unknown[];
}

const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((r) => [r.id, r]));

/** Loads what the documents of these jobs refer to, in a fixed number of queries whatever their number. */
async function loadRelated(db: Kysely<Database>, jobs: JobRow[]): Promise<Related> {
  const ids = (f: (j: JobRow) => string | null) => [...new Set(jobs.map(f).filter((x): x is string => Boolean(x)))];
  const [projectIds, workflowIds, userIds, queueIds, clusterIds] = [
    ids((j) => j.project_id),
    ids((j) => j.workflow_id),
    ids((j) => j.user_id),
    ids((j) => j.queue_id),
    ids((j) => j.hpc_id ?? null),
  ];
  const none = <T>() => Promise.resolve([] as T[]);
  const [projects, workflows, users, queues, clusters, folders, parameters] = await Promise.all([
    projectIds.length
      ? db
          .selectFrom('projects')
          .select(['id', 'name', 'user_id', 'workspace_id', 'created_at', 'updated_at'])
          .where('id', 'in', projectIds)
          .execute()
      : none<never>(),
    workflowIds.length
      ? db
          .selectFrom('workflows')
          .innerJoin('users', 'users.id', 'workflows.user_id')
          .selectAll('workflows')
          .select(['users.name as owner_name', 'users.surname as owner_surname', 'users.email as owner_email'])
          .where('workflows.id', 'in', workflowIds)
          .execute()
      : none<never>(),
    userIds.length ? db.selectFrom('users').select(['id', 'name', 'surname', 'email']).where('id', 'in', userIds).execute() : none<never>(),
    queueIds.length ? db.selectFrom('queues').selectAll().where('id', 'in', queueIds).execute() : none<never>(),
    clusterIds.length ? db.selectFrom('hpc_clusters').selectAll().where('id', 'in', clusterIds).execute() : none<never>(),
    jobFolderInfo(db, jobs),
    parameterExpander(db, jobs),
  ]);
  return {
    projects: byId(projects),
    workflows: byId(workflows as WorkflowRow[]),
    users: byId(users),
    queues: byId(queues),
    clusters: byId(clusters),
    folders,
    parameters,
  };
}

/**
 * `logs` and `results` where the job's data is: `s3BucketName` (the key the public client tells
 * AWS by) on the local and S3 stores, the blob keys on Azure (told by the job's results folder).
 */
function storageKeys(job: JobRow, rel: Related, bucket: string, prefix: string): Record<string, unknown> {
  const azure = job.results_folder_id ? rel.folders.get(job.results_folder_id)?.azureAccount : undefined;
  if (azure) {
    const blob = (dir: string) => ({ blobStorageAccountName: azure, blobContainerName: bucket, blobPrefix: `${prefix}/${dir}` });
    return { logs: blob('logs'), results: blob('results') };
  }
  return {
    logs: { s3BucketName: bucket, s3Prefix: `${prefix}/logs` },
    results: { s3BucketName: bucket, s3Bucket: bucket, s3Prefix: `${prefix}/results` },
  };
}

/** The job document of `GET /api/v1/jobs/{id}` with every key the wire reference lists (§2.1). */
function toDocument(job: JobRow, rel: Related, dataDir: string): Record<string, unknown> {
  const project = rel.projects.get(job.project_id);
  const workflow = rel.workflows.get(job.workflow_id);
  const user = rel.users.get(job.user_id);
  const queue = job.queue_id ? rel.queues.get(job.queue_id) : undefined;
  const paths = jobPaths(dataDir, job.workspace_id, job.id);
  const docker = job.workflow_type === 'docker';
  const costCents = Number(job.compute_cost_cents);
  return {
    _id: job.id,
    name: job.name,
    status: job.status,
    team: job.workspace_id,
    jobType: job.job_type,
    executionPlatform: job.execution_platform,
    hpcCluster: hpcClusterKey(job, queue, job.hpc_id ? rel.clusters.get(job.hpc_id) : undefined),
    parameters: rel.parameters(job),
    project: project && {
      _id: project.id,
      name: project.name,
      user: project.user_id,
      team: project.workspace_id,
      createdAt: project.created_at,
      updatedAt: project.updated_at,
    },
    workflow: workflow && workflowToWire(workflow),
    user: user && { id: user.id, _id: user.id, name: user.name, surname: user.surname, email: user.email },
    revision: JSON.parse(job.revision_json),
    // What the task is given (its instance type's size for a Nextflow or WDL job), as the executor applies it.
    // (An array job's tasks each get what it asked for; it holds that times the tasks running at once.)
    resourceRequirements: job.array_size
      ? { cpu: Number(job.resource_cpu), ram: Number(job.resource_ram) }
      : { cpu: Number(job.cpus), ram: Number(job.memory_gib) },
    ...(job.array_size && { arrayTasks: arrayTasksOf(job) }),
    instanceType: job.instance_type,
    // Runyard: said when the local executor gives the job less than it asked for (it runs capped).
    ...(job.resources_note && { resourcesNote: job.resources_note }),
    masterInstance: {
      requestedInstance: { type: job.instance_type, asSpot: false },
      usedInstance: {
        type: job.instance_type,
        name: queue ? `${queue.backend}-executor` : 'local-executor',
        asSpot: false,
        vcpus: Number(job.cpus),
        memoryGiB: Number(job.memory_gib),
      },
    },
    storageSizeInGb: job.storage_size_gb,
    storageMode: 'regular',
    startTime: job.start_time,
    endTime: job.end_time,
    createdAt: job.created_at,
    updatedAt: job.updated_at,
    computeCostSpent: costCents,
    realInstancesExecutionCost: costCents,
    computeCostLimit: job.cost_limit,
    execution: { computeCostLimit: job.cost_limit },
    usesFusionFileSystem: usesFusionFileSystem(job),
    ...(!docker && { nextflowVersion: job.nextflow_version }),
    profile: job.profile,
    resumable: job.resumable === 1,
    saveProcessLogs: job.save_process_logs === 1,
    batch: { enabled: job.batch_enabled === 1, jobQueue: queue ? queueToWire(queue) : null, dockerLogin: job.docker_login === 1 },
    ...(docker && { command: job.command ?? '' }),
    ...storageKeys(job, rel, paths.bucket, paths.prefix),
    ...jobFolderKeys(job, rel.folders),
    archived: { status: job.archived === 1, archivalTimestamp: job.archived_at },
    attempt: job.attempt,
    exitCode: job.exit_code,
    statusMessage: job.status_message,
  };
}

export async function jobDocuments(db: Kysely<Database>, dataDir: string, jobs: JobRow[]): Promise<Record<string, unknown>[]> {
  const rel = await loadRelated(db, jobs);
  return jobs.map((j) => toDocument(j, rel, dataDir));
}

/** A bash array job's tasks: how many, how many at once, and how many are queued, running, completed, failed. */
function arrayTasksOf(job: JobRow): Record<string, number> {
  const size = Number(job.array_size);
  const stored = job.array_tasks_json ? (JSON.parse(job.array_tasks_json) as Record<string, number>) : null;
  const { total, queued, running, completed, failed } = stored ?? { total: size, queued: size, running: 0, completed: 0, failed: 0 };
  return { total, queued, running, completed, failed, atOnce: Number(job.array_limit) };
}
