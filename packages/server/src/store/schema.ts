import type { Generated } from 'kysely';

/** Table row types. Booleans are 0/1 integers and times ISO-8601 text, the same on both databases. */
export interface UserTable {
  id: string;
  username: string;
  email: string;
  name: string;
  surname: string;
  is_admin: number;
  active: number;
  created_at: string;
}

export interface WorkspaceTable {
  id: string;
  name: string;
  created_at: string;
}

export interface MembershipTable {
  workspace_id: string;
  user_id: string;
  role: string;
  created_at: string;
}

export interface ApiKeyTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ProjectTable {
  id: string;
  workspace_id: string;
  name: string;
  user_id: string;
  created_at: string;
  updated_at: string;
  workflow_count: Generated<number>;
  job_count: Generated<number>;
  notebook_session_count: Generated<number>;
}

export interface WorkflowTable {
  id: string;
  workspace_id: string;
  user_id: string;
  name: string;
  description: string;
  workflow_type: string;
  group_name: string;
  main_file: string | null;
  imports_file: string | null;
  platform: string | null;
  repository_url: string | null;
  repository_name: string | null;
  repository_owner: string | null;
  repository_id: string | null;
  repository_owner_id: string | null;
  default_branch: string | null;
  is_private: number;
  container_name: string | null;
  default_command: string | null;
  docs_link: string;
  is_public: number;
  cost_limit_usd: number;
  archived: number;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface QueueTable {
  id: string;
  workspace_id: string;
  name: string;
  label: string;
  description: string;
  executor: string;
  backend: string;
  concurrency: number;
  /** `host` or `none`: what the tasks of its jobs may reach; null: the server's RUNYARD_TASK_NETWORK. */
  task_network?: string | null;
  /** The process limit of each of its jobs' tasks (pids.max); null: 256 per CPU, at least 512. */
  pids_limit?: number | null;
  /** The HPC cluster its jobs run on (backend slurm); null: a local queue. */
  hpc_id?: string | null;
  /** Its Slurm partition; null: the cluster's default. */
  partition?: string | null;
  is_default: number;
  is_system: number;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface JobTable {
  id: string;
  workspace_id: string;
  project_id: string;
  workflow_id: string;
  user_id: string;
  queue_id: string | null;
  name: string;
  status: string;
  job_type: string;
  workflow_type: string;
  execution_platform: string;
  /** The submission body as received (for request-payload and clone). */
  request_json: string;
  /** Parameters after resolution. */
  parameters_json: string;
  /** {revisionType, commit, tag, branch} with the commit resolved, or {digest, tag} for containers. */
  revision_json: string;
  profile: string | null;
  nextflow_version: string | null;
  command: string | null;
  resource_cpu: number;
  resource_ram: number;
  instance_type: string | null;
  /** CPUs and memory (GiB) the task is given (jobResources at submission): what it holds of the executor's capacity. */
  cpus: Generated<number>;
  memory_gib: Generated<number>;
  /** Set when the local executor gives the job less than it asked for (cappedNote), for its document. */
  resources_note: Generated<string | null>;
  /** The digest of the image the job runs in (set when it is pulled); null: no image. */
  image_digest: Generated<string | null>;
  storage_size_gb: number;
  /** Dollars; -1 means no limit. */
  cost_limit: number;
  compute_cost_cents: Generated<number>;
  resumable: number;
  save_process_logs: number;
  batch_enabled: number;
  archived: Generated<number>;
  archived_at: string | null;
  /** Dispatch attempts so far; a result reported by any other attempt is refused. */
  attempt: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** The executor's id of the running task (JSON), stored before the job is reported running. */
  external_id: string | null;
  exit_code: number | null;
  status_message: string | null;
  abort_force: Generated<number>;
  resume_work_dir: string | null;
  created_at: string;
  updated_at: string;
  start_time: string | null;
  end_time: string | null;
  /** The File Explorer folder of the job's results (`Analyses Results/<name>-<id>`). */
  results_folder_id?: string | null;
  /** The folder of the job's work directory; a resumed job shares its parent's. */
  work_folder_id?: string | null;
  /** Bucket and key prefix (no trailing slash) of the work directory: where the engine runs. */
  work_bucket?: string | null;
  work_prefix?: string | null;
  /** The HPC cluster the job runs on (its queue's); null: not on a cluster. */
  hpc_id?: string | null;
  /** Bash array jobs: how many tasks (data rows), and how many run at once; null for other jobs. */
  array_size?: number | null;
  array_limit?: number | null;
  /** Bash array jobs: ArrayTaskCounts as JSON, kept by the scheduler while the job runs. */
  array_tasks_json?: string | null;
  /** 1: the task logs in to its image's registry with its user's linked account (batch.dockerLogin). */
  docker_login?: Generated<number>;
}

export interface DockerRegistryTable {
  id: string;
  user_id: string;
  registry: string;
  username: string;
  /** store/secret-box.ts */
  password_sealed: string;
  created_at: string;
  updated_at: string;
}

export interface HpcClusterTable {
  id: string;
  name: string;
  /** JSON array of argv strings put before every Slurm command; run without a shell. */
  submit_prefix: Generated<string>;
  /** JSON array of partition names; the first is the default. */
  partitions: string;
  /** Absolute path the server and every node share. */
  shared_dir: string;
  created_at: string;
  updated_at: string;
}

export interface DatasetTable {
  id: string;
  workspace_id: string;
  project_id: string;
  /** Data, AnalysesResults or Cohorts. */
  kind: string;
  name: string;
  created_at: string;
  updated_at: string;
}

/** Columns folders and files share. */
interface DataItemColumns {
  id: string;
  workspace_id: string;
  name: string;
  /** VirtualFolder, S3Folder, AzureBlobFolder; S3File, AzureBlobFile. */
  item_type: string;
  /** Dataset, Folder, or Job (a work directory). */
  parent_kind: string;
  parent_id: string;
  /** Bucket (S3 and local) or container (Azure); null for virtual folders. */
  bucket: string | null;
  /** Azure storage account. */
  account: string | null;
  /** A folder's prefix without trailing slash, or a file's key. */
  storage_key: string | null;
  size_bytes: Generated<number>;
  is_managed: Generated<number>;
  user_id: string;
  /** ready, scheduledForDeletion, deleting, deleted, failedToDelete. */
  status: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface FolderTable extends DataItemColumns {
  job_id: string | null;
  /** results or work, for the folders a job made. */
  job_role: string | null;
  status_message: string | null;
  deleted_by: string | null;
  deletion_date: string | null;
}

export type FileTable = DataItemColumns;

/** A workspace's WDL engine server (migration 0012). */
export interface EngineServerTable {
  id: string;
  workspace_id: string;
  /** toil, cromwell or miniwdl (engines/wdl/driver.ts). */
  driver: string;
  /** Stopped, Starting, Running or Stopping. */
  status: string;
  /** The Cromwell server's base URL (cromwell driver); null for the others. */
  url: string | null;
  /** A server Runyard runs itself (its pid and so on), JSON; null when none. */
  process_json: string | null;
  /** SHA-256 (hex) of the engine token. */
  token_hash: string;
  /** The engine token, sealed with the server's key. */
  token_sealed: string;
  status_message: string | null;
  created_at: string;
  updated_at: string;
}

/** An interactive session (migration 0013). Money in cents, except cost_limit (dollars, -1: none). */
export interface InteractiveSessionTable {
  id: string;
  workspace_id: string;
  project_id: string;
  user_id: string;
  name: string;
  /** regular (Jupyter), vscode, rstudio or spark. */
  backend: string;
  /** aws or azure, as asked (it names interactiveSessionType); sessions run on this server either way. */
  execution_platform: string;
  /** workspace or private. */
  visibility: string;
  /** scheduled, initializing, setup, ready, aborting, aborted or terminated (scheduler/session-state.ts). */
  status: string;
  /** Why the session stopped or is stopping, or what failed, for people. */
  status_message: string | null;
  /** Why its last run was stopped: user, costLimit, autoShutdown or error. */
  stop_reason: string | null;
  /** From the catalogue: its size (what the sandbox gives it) and its hourly price, set at creation and resume. */
  instance_type: string;
  cpus: number;
  memory_gib: number;
  price_per_hour_cents: number;
  is_cost_saving: number;
  storage_size_gb: number;
  storage_mode: string;
  /** Dollars; -1 means no limit. */
  cost_limit: number;
  /** When the reaper stops it; null: never. */
  auto_shutdown_at: string | null;
  r_version: string | null;
  /** Spark's cluster description as received; null for the other backends. */
  cluster_json: string | null;
  /** The files given to it, resolved (services/interactive-session-items.ts: ResolvedSessionItem[]), JSON. */
  data_items_json: string;
  /** The folders linked into it, resolved the same way, JSON. */
  fuse_file_systems_json: string;
  /** The create body as received. */
  request_json: string;
  /** Where its home directory is saved between runs: `<workspace>/interactive-sessions/<id>/home` of the workspace's bucket. */
  home_bucket: string;
  home_prefix: string;
  /** The executor's id of the running session (JSON), stored before it is reported running. */
  external_id: string | null;
  /** Where the running session's web UI listens (a unix socket path, or host:port on a private address), for the proxy. */
  ui_address: string | null;
  /** The session server's own token, sealed with the server's key (store/secret-box.ts); never shown. */
  ui_token_sealed: string | null;
  /** Runs so far: a resume starts the next; a report from another run is refused. */
  attempt: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** What the last pause asked for: save the home first (1), stop at once without saving (abort_force 1). */
  upload_on_close: Generated<number>;
  abort_force: Generated<number>;
  /** When the current run began to cost (null while none runs); the seconds and cents of the runs before it. */
  run_started_at: string | null;
  running_seconds: Generated<number>;
  cost_cents: Generated<number>;
  last_saved_at: string | null;
  archived: Generated<number>;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
  /** When it was terminated. */
  ended_at: string | null;
  /** The image it runs in, as given at creation (migration 0022); null: the server's own Jupyter. */
  image: Generated<string | null>;
  /** The digest its current run's image was pulled as; null before the pull and for a session without an image. */
  image_digest: Generated<string | null>;
}

/** A folder or file linked into an interactive session (migration 0014): one per mount name of the session. */
export interface SessionMountTable {
  id: string;
  session_id: string;
  workspace_id: string;
  /** Its name under the session's mounts/ (checked: no separator, nothing hidden). */
  name: string;
  /** folder or file. */
  item_kind: string;
  /** s3 (given as a storage item: S3Folder, S3File) or file (a File Explorer folder or file, by id). */
  storage_provider: string;
  /** The File Explorer folder or file, when it is one. */
  item_id: string | null;
  /** Where it is: bucket (or Azure container) and folder prefix (no trailing slash) or object key. */
  bucket: string;
  storage_key: string;
  account: string | null;
  /** The item as the client gave it (SessionDataItem), JSON. */
  given_json: string;
  /** link (the fuse-filesystem/mount routes) or session (given at creation or resume). */
  source: string;
  /** mounting, mounted, failed or unmounted (SESSION_MOUNT_STATUSES). */
  status: string;
  /** Why it failed, for people. */
  error_message: string | null;
  created_at: string;
  updated_at: string;
}

/** A dashboard sign-in (migration 0015): the session cookie's token is known by its hash only. */
export interface WebSessionTable {
  id: string;
  /** SHA-256 (hex) of the cookie's token. */
  token_hash: string;
  user_id: string;
  /** The API key the person signed in with: revoking it ends the session. */
  api_key_id: string;
  created_at: string;
  expires_at: string;
}

export interface Database {
  users: UserTable;
  workspaces: WorkspaceTable;
  memberships: MembershipTable;
  api_keys: ApiKeyTable;
  projects: ProjectTable;
  workflows: WorkflowTable;
  queues: QueueTable;
  jobs: JobTable;
  datasets: DatasetTable;
  folders: FolderTable;
  files: FileTable;
  hpc_clusters: HpcClusterTable;
  docker_registries: DockerRegistryTable;
  engine_servers: EngineServerTable;
  interactive_sessions: InteractiveSessionTable;
  session_mounts: SessionMountTable;
  web_sessions: WebSessionTable;
}
