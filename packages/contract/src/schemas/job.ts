import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, Name, ObjectId, PaginationMetadata } from './common.js';
import { PartitionName } from './hpc.js';

/** Every job status; job-state.ts in the server holds the legal transitions between them. */
export const JOB_STATUSES = ['queued', 'scheduled', 'initializing', 'running', 'completed', 'failed', 'aborting', 'aborted'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'aborted'];

export const EXECUTION_PLATFORMS = ['aws', 'azure', 'hpc'] as const;

/** jobType on the wire, by workflow type and execution platform. */
export const JOB_TYPES = ['nextflowAWS', 'nextflowAzure', 'nextflowHpc', 'dockerAWS', 'cromwellAWS'] as const;
export type JobType = (typeof JOB_TYPES)[number];

const Str = (max: number) => Type.String({ maxLength: max });

/** A parameter as the client sends it (wire-api §2.3); dataItem/folder ids are resolved by the server. */
export const JobParameter = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  prefix: Type.Optional(Str(4)),
  parameterKind: Type.Union(['textValue', 'dataItem', 'globPattern', 'arrayFileColumn', 'lustreFileSystem'].map((k) => Type.Literal(k))),
  textValue: Type.Optional(Type.Union([Str(65536), Type.Number(), Type.Boolean()])),
  dataItem: Type.Optional(Type.Object({ kind: Type.Optional(Str(20)), item: Type.Unknown() })),
  globPattern: Type.Optional(Str(1000)),
  folder: Type.Optional(Type.Unknown()),
  columnName: Type.Optional(Str(200)),
  columnIndex: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^\\d+$' })])),
});
export type JobParameter = Static<typeof JobParameter>;

const DataItemRef = Type.Object({ dataItem: Type.Object({ kind: Str(20), item: Str(100) }) });

/** The body of `POST /api/v2/jobs` (wire-api §2.2); unknown keys are ignored, as CloudOS does. */
export const JobSubmitBody = Type.Object({
  parameters: Type.Optional(Type.Array(JobParameter, { maxItems: 1000 })),
  project: ObjectId,
  workflow: ObjectId,
  name: Type.Optional(Name),
  resumable: Type.Optional(Type.Boolean()),
  saveProcessLogs: Type.Optional(Type.Boolean()),
  executionPlatform: Type.Optional(Str(20)),
  hpc: Type.Optional(Type.Union([Str(100), Type.Null()])),
  storageSizeInGb: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
  execution: Type.Optional(
    Type.Object({
      computeCostLimit: Type.Optional(Type.Number({ minimum: -1, maximum: 1e9 })),
      optim: Type.Optional(Str(50)),
    }),
  ),
  instanceType: Type.Optional(Type.Union([Str(100), Type.Null()])),
  usesFusionFileSystem: Type.Optional(Type.Boolean()),
  accelerateSavingResults: Type.Optional(Type.Boolean()),
  parametersFile: Type.Optional(Type.Unknown()),
  nextflowVersion: Type.Optional(Type.String({ maxLength: 50, pattern: '^[A-Za-z0-9._-]+$' })),
  masterInstance: Type.Optional(
    Type.Object({ requestedInstance: Type.Optional(Type.Object({ type: Type.Optional(Type.Union([Str(100), Type.Null()])) })) }),
  ),
  batch: Type.Optional(
    Type.Object({
      enabled: Type.Optional(Type.Boolean()),
      jobQueue: Type.Optional(Type.Union([ObjectId, Type.Null()])),
      dockerLogin: Type.Optional(Type.Boolean()),
    }),
  ),
  azureBatch: Type.Optional(Type.Unknown()),
  command: Type.Optional(Type.String({ minLength: 1, maxLength: 65536 })),
  customScriptFile: Type.Optional(DataItemRef),
  arrayFile: Type.Optional(Type.Intersect([DataItemRef, Type.Object({ separator: Type.Optional(Str(10)) })])),
  resourceRequirements: Type.Optional(
    Type.Object({
      cpu: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
      ram: Type.Optional(Type.Number({ minimum: 0.1, maximum: 65536 })),
    }),
  ),
  cromwellCloudResources: Type.Optional(Type.Union([Str(100), Type.Null()])),
  revision: Type.Optional(
    Type.Object({
      revisionType: Type.Optional(Str(20)),
      commit: Type.Optional(Type.Union([Str(100), Type.Null()])),
      tag: Type.Optional(Type.Union([Str(300), Type.Null()])),
      branch: Type.Optional(Type.Union([Str(300), Type.Null()])),
      digest: Type.Optional(Type.Union([Str(200), Type.Null()])),
    }),
  ),
  profile: Type.Optional(Type.Union([Type.String({ maxLength: 300, pattern: '^[A-Za-z0-9_,.-]*$' }), Type.Null()])),
  resumeWorkDir: Type.Optional(Type.Union([Str(100), Type.Null()])),
});
export type JobSubmitBody = Static<typeof JobSubmitBody>;

export const JobSubmitReply = Type.Object({ jobId: ObjectId });

/** `GET /api/v1/jobs/array-file/metadata` (wire-api §2.1): s3ObjectKey is the standard base64 of the key, sent unencoded. */
export const ArrayFileMetadataQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  separator: Str(10),
  s3BucketName: Type.String({ minLength: 1, maxLength: 255 }),
  s3ObjectKey: Type.String({ minLength: 1, maxLength: 4096 }),
});
export type ArrayFileMetadataQuery = Static<typeof ArrayFileMetadataQuery>;

export const ArrayFileMetadataReply = Type.Object({
  headers: Type.Array(Type.Object({ index: Type.Integer(), name: Type.String() })),
});
export type ArrayFileMetadataReply = Static<typeof ArrayFileMetadataReply>;

/** How many tasks of a bash array job are queued, running, completed and failed (the job document's `arrayTasks`, with `atOnce`). */
export interface ArrayTaskCounts {
  total: number;
  queued: number;
  running: number;
  completed: number;
  failed: number;
}

/** `GET /api/runyard/jobs/{id}/events`: from which byte of the job's log (default 0: the beginning). */
export const JobEventsQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type JobEventsQuery = Static<typeof JobEventsQuery>;

export const JobIdParams = Type.Object({ id: ObjectId });

/** `GET /api/v1/jobs/{id}?teamId=` — teamId may be missing or the literal "None" (wire-api §1.3). */
export const JobGetQuery = Type.Object({ teamId: Type.Optional(Type.String()) });

export const MAX_JOB_PAGE_SIZE = 100;

export const JobListQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  'archived.status': Type.Optional(Type.Boolean()),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_JOB_PAGE_SIZE })),
  status: Type.Optional(Type.String({ maxLength: 20 })),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  id: Type.Optional(Type.String({ maxLength: 100 })),
  'project.id': Type.Optional(Type.String({ maxLength: 100 })),
  'workflow.id': Type.Optional(Type.String({ maxLength: 100 })),
  'user.id': Type.Optional(Type.String({ maxLength: 100 })),
  'workDirectory.folderId': Type.Optional(Type.String({ maxLength: 100 })),
  /** Runyard's own filter (the public client filters queues itself, page by page): the dashboard's queue filter. */
  'batch.jobQueue.id': Type.Optional(Type.String({ maxLength: 100 })),
  sort: Type.Optional(Type.Union(['createdAt', '-createdAt', 'name', '-name', 'status', '-status'].map((s) => Type.Literal(s)))),
});
export type JobListQuery = Static<typeof JobListQuery>;

export const JobListReply = Type.Object({
  jobs: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  paginationMetadata: Type.Composite([PaginationMetadata, Type.Object({ 'Pagination-Completed-Count': Type.Integer() })]),
});

export const JobAbortQuery = Type.Object({ teamId: Type.String({ minLength: 1 }), forceAbort: Type.Optional(Type.Boolean()) });

/** `PUT /api/v1/jobs` archive and unarchive. */
export const JobArchiveBody = Type.Object({
  jobIds: Type.Array(ObjectId, { minItems: 1, maxItems: 1000 }),
  update: Type.Object({
    archived: Type.Object({
      status: Type.Boolean(),
      archivalTimestamp: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
    }),
  }),
});
export type JobArchiveBody = Static<typeof JobArchiveBody>;

export const SuccessReply = Type.Object({ success: Type.Boolean() });

/** A job queue as `GET /api/v1/teams/aws/v2/job-queues` returns it (wire-api §2.10). */
export const JobQueue = Type.Object({
  id: ObjectId,
  _id: ObjectId,
  resource: ObjectId,
  name: Type.String(),
  label: Type.String(),
  description: Type.String(),
  isDefault: Type.Boolean(),
  resourceType: Type.String(),
  executor: Type.String(),
  arn: Type.String(),
  computeEnvironments: Type.Array(
    Type.Object({
      label: Type.String(),
      environment: Type.Object({ backend: Type.String(), concurrency: Type.Integer() }),
      status: Type.String(),
      createdAt: IsoTime,
      updatedAt: IsoTime,
    }),
  ),
  status: Type.String(),
  backend: Type.String(),
  concurrency: Type.Integer(),
  /**
   * What the tasks of its jobs may reach: outbound (the internet, not the platform's host or
   * private addresses), none (a loopback of their own) or host (the host's network); null: the server's setting.
   */
  taskNetwork: Type.Union([Type.Literal('outbound'), Type.Literal('host'), Type.Literal('none'), Type.Null()]),
  /** The most processes (threads included) each task of its jobs may have; null: 256 per CPU, at least 512. */
  pidsLimit: Type.Union([Type.Integer(), Type.Null()]),
  /** The HPC cluster its jobs run on (backend slurm); null for a local queue. */
  hpcId: Type.Union([ObjectId, Type.Null()]),
  /** Its Slurm partition; null: the cluster's default (or a local queue). */
  partition: Type.Union([Type.String(), Type.Null()]),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type JobQueue = Static<typeof JobQueue>;

export const QueueCreateBody = Type.Object(
  {
    workspaceId: ObjectId,
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    executor: Type.Optional(Type.Union([Type.Literal('nextflow'), Type.Literal('cromwell')])),
    /** slurm needs hpcId; hpcId alone implies it. */
    backend: Type.Optional(Type.Union([Type.Literal('local'), Type.Literal('slurm')])),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
    isDefault: Type.Optional(Type.Boolean()),
    taskNetwork: Type.Optional(Type.Union([Type.Literal('outbound'), Type.Literal('host'), Type.Literal('none')])),
    /** The process limit of each task (the cgroup pids controller); local queues only (a cluster's own cgroup settings limit its jobs). */
    pidsLimit: Type.Optional(Type.Integer({ minimum: 64, maximum: 4_194_304 })),
    /** A registered HPC cluster: the queue's jobs run there. */
    hpcId: Type.Optional(ObjectId),
    /** One of the cluster's partitions; default: the cluster's default partition. */
    partition: Type.Optional(PartitionName),
  },
  { additionalProperties: false },
);
export type QueueCreateBody = Static<typeof QueueCreateBody>;
