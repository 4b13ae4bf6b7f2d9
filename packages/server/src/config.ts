import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { readInstanceTypesFile } from './instance-types/load.js';

/** How sandboxed tasks reach the network (executors/sandbox/task-network.ts says what each means). */
export const TASK_NETWORKS = ['outbound', 'host', 'none'] as const;
export type TaskNetwork = (typeof TASK_NETWORKS)[number];

export function isTaskNetwork(value: unknown): value is TaskNetwork {
  return (TASK_NETWORKS as readonly unknown[]).includes(value);
}

/**
 * The whole server configuration: one schema, read once at start from RUNYARD_* environment
 * variables and an optional JSON config file (RUNYARD_CONFIG_FILE), validated with every bad key
 * reported at once, then frozen. Nothing else in the server reads process.env.
 * docs/configuration.md documents each key; a test keeps the two in sync.
 */
export const CONFIG_KEYS = {
  host: { env: 'RUNYARD_HOST', schema: Type.String({ minLength: 1 }), default: '127.0.0.1', doc: 'Address to listen on.' },
  port: {
    env: 'RUNYARD_PORT',
    schema: Type.Integer({ minimum: 0, maximum: 65535 }),
    default: 8080,
    doc: 'TCP port to listen on (0 picks a free port).',
  },
  dataDir: {
    env: 'RUNYARD_DATA_DIR',
    schema: Type.String({ minLength: 1 }),
    default: './.runyard-data',
    doc: 'Directory for the SQLite database, blob storage and initial-admin.json.',
  },
  databaseUrl: {
    env: 'RUNYARD_DATABASE_URL',
    schema: Type.String({ pattern: '^(|sqlite:.*|postgres(ql)?://.*)$' }),
    default: '',
    doc: 'Empty: SQLite file <dataDir>/runyard.db. `sqlite:<path>` for another SQLite file, `postgres://user@host:port/db` for PostgreSQL.',
  },
  publicUrl: {
    env: 'RUNYARD_PUBLIC_URL',
    schema: Type.String({ pattern: '^(|https?://.+)$' }),
    default: '',
    doc: 'URL that clients use to reach the server, when it differs from the listen address (proxies).',
  },
  sessionsUrl: {
    env: 'RUNYARD_SESSIONS_URL',
    schema: Type.String({ pattern: '^(|https?://[^/?#@\\s]+/?)$' }),
    default: '',
    doc: "Base URL (scheme://host[:port], no path) at which browsers reach interactive sessions' web UIs: another host name than the platform's (e.g. a second DNS name of this server), so that a session's pages never get the dashboard's cookie. Empty: http(s)://localhost:<port> when the platform's URL is on 127.0.0.1 (127.0.0.1 when it is on localhost); otherwise sessions share the platform's origin, and a warning at start says so.",
  },
  logLevel: {
    env: 'RUNYARD_LOG_LEVEL',
    schema: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
    default: 'info',
    doc: 'Level of the log lines on stdout; each HTTP request is logged at debug.',
  },
  logFormat: {
    env: 'RUNYARD_LOG_FORMAT',
    schema: Type.Union(['auto', 'json', 'pretty'].map((f) => Type.Literal(f))),
    default: 'auto',
    doc: 'Log lines: pretty (time, level, message), json (one JSON object a line), auto (pretty on a terminal, JSON otherwise).',
  },
  tlsCertFile: {
    env: 'RUNYARD_TLS_CERT_FILE',
    schema: Type.String(),
    default: '',
    doc: 'PEM certificate file; with tlsKeyFile the server speaks HTTPS.',
  },
  tlsKeyFile: { env: 'RUNYARD_TLS_KEY_FILE', schema: Type.String(), default: '', doc: 'PEM private key file for HTTPS.' },
  gitAllowedHosts: {
    env: 'RUNYARD_GIT_ALLOWED_HOSTS',
    schema: Type.Array(Type.String({ pattern: '^[a-z0-9.-]+$' })),
    default: [] as string[],
    doc: 'Comma-separated git hosts that workflows may be imported from, besides github.com, gitlab.com and bitbucket.org.',
  },
  gitUrlRewrites: {
    env: 'RUNYARD_GIT_URL_REWRITES',
    schema: Type.Record(Type.String({ pattern: '^https://' }), Type.String({ pattern: '^(https|file)://' })),
    default: {} as Record<string, string>,
    doc: "JSON object of URL prefix to replacement, like git's url.<base>.insteadOf: serve e.g. https://github.com/ from a mirror.",
  },
  role: {
    env: 'RUNYARD_ROLE',
    schema: Type.Union([Type.Literal('all'), Type.Literal('api'), Type.Literal('scheduler')]),
    default: 'all' as 'all' | 'api' | 'scheduler',
    doc: 'What this process does: all (the API and the scheduler, the embedded default), api (serves the API, runs no job) or scheduler (runs jobs, serves no API). Processes of any roles share one database.',
  },
  secretKeyFile: {
    env: 'RUNYARD_SECRET_KEY_FILE',
    schema: Type.String(),
    default: '',
    doc: "File of the server's 32-byte key that seals secrets kept in the database (users' docker registry passwords); made (0600) on first use. Empty: <dataDir>/secret.key. Every process on the same database needs the same file.",
  },
  webDir: {
    env: 'RUNYARD_WEB_DIR',
    schema: Type.String(),
    default: '',
    doc: 'Directory of the built dashboard, served at /app/ (its index.html for every client-side route). Empty: packages/web/dist of the checkout the server runs from (`npm run build` makes it).',
  },
  webSessionHours: {
    env: 'RUNYARD_WEB_SESSION_HOURS',
    schema: Type.Number({ exclusiveMinimum: 0, maximum: 8760 }),
    default: 12,
    doc: 'Hours a dashboard sign-in lasts: the session cookie (runyard_session) and its row end then, and the person signs in again with an API key.',
  },
  apiThreadNice: {
    env: 'RUNYARD_API_THREAD_NICE',
    schema: Type.Integer({ minimum: 0, maximum: 19 }),
    default: 5,
    doc: "Role all: how much lower than the scheduler's thread the API's thread runs (a nice value added to it, Linux), so that a busy API leaves the scheduler the CPU to keep dispatching jobs. 0: the same priority.",
  },
  schedulerPollMs: {
    env: 'RUNYARD_SCHEDULER_POLL_MS',
    schema: Type.Integer({ minimum: 10, maximum: 600_000 }),
    default: 1000,
    doc: 'Milliseconds between scheduler passes (claims, expired leases, aborts); submissions and aborts in this process wake it at once (under a stream of them, at most every 20 ms).',
  },
  diskCheckSeconds: {
    env: 'RUNYARD_DISK_CHECK_SECONDS',
    schema: Type.Integer({ minimum: 1, maximum: 3600 }),
    default: 10,
    doc: 'Seconds between the checks of what running jobs have written (their work, results and logs directories) against their disk limit (storageSizeInGb, --instance-disk); a job past it fails with a message that says so. A job can pass the limit by what it writes between two checks.',
  },
  slurmPollMs: {
    env: 'RUNYARD_SLURM_POLL_MS',
    schema: Type.Integer({ minimum: 100, maximum: 600_000 }),
    default: 1000,
    doc: "Milliseconds between polls of a Slurm cluster's job states (one squeue call per cluster and poll, for all its jobs); a newly submitted job is polled after 50 ms, then 100, 200... up to this.",
  },
  schedulerLeaseMs: {
    env: 'RUNYARD_SCHEDULER_LEASE_MS',
    schema: Type.Integer({ minimum: 100, maximum: 3_600_000 }),
    default: 30000,
    doc: 'Milliseconds a scheduler holds a job without renewing its lease; after that another scheduler takes the job over.',
  },
  abortGraceMs: {
    env: 'RUNYARD_ABORT_GRACE_MS',
    schema: Type.Integer({ minimum: 0, maximum: 3_600_000 }),
    default: 10000,
    doc: 'Milliseconds between SIGTERM and SIGKILL when a job is aborted without force.',
  },
  jobMaxAttempts: {
    env: 'RUNYARD_JOB_MAX_ATTEMPTS',
    schema: Type.Integer({ minimum: 1, maximum: 100 }),
    default: 3,
    doc: 'Dispatch attempts of a job whose task was lost (its process vanished without an exit code) before the job fails.',
  },
  cpuHourCostCents: {
    env: 'RUNYARD_CPU_HOUR_COST_CENTS',
    schema: Type.Number({ minimum: 0 }),
    default: 0,
    doc: "Price override: above 0, a job costs this many cents per requested CPU per hour of run time, instead of its instance type's hourly price.",
  },
  instanceTypesFile: {
    env: 'RUNYARD_INSTANCE_TYPES',
    schema: Type.String(),
    default: '',
    doc: 'Path of a JSON file of instance types (name, vcpus, memoryGiB, pricePerHourUsd, priceDate): an array extends the built-in catalogue (an entry with a built-in name replaces it); `{"replaceBuiltIn": true, "instanceTypes": [...]}` replaces it. Empty: the built-in catalogue.',
  },
  localCpus: {
    env: 'RUNYARD_LOCAL_CPUS',
    schema: Type.Number({ minimum: 0, maximum: 1_000_000 }),
    default: 0,
    doc: "CPUs of the local executor, shared by all its queues and workspaces: a job starts when its CPUs are free, and one that asks for more runs with these (or is refused: RUNYARD_STRICT_RESOURCES). 0: the host's CPUs.",
  },
  localMemoryGiB: {
    env: 'RUNYARD_LOCAL_MEMORY_GIB',
    schema: Type.Number({ minimum: 0, maximum: 100_000_000 }),
    default: 0,
    doc: "Memory (GiB) of the local executor, shared like its CPUs. 0: the host's memory.",
  },
  strictResources: {
    env: 'RUNYARD_STRICT_RESOURCES',
    schema: Type.Boolean(),
    default: false,
    doc: 'Refuse (400) jobs and interactive sessions that ask for more CPUs or memory than the local executor has (their instance type, or cpu and ram). false: they run with what it has (capped to its CPUs and memory, limits enforced at the cap), their log and document say so, and they cost what they asked for.',
  },
  taskPath: {
    env: 'RUNYARD_TASK_PATH',
    schema: Type.String(),
    default: '',
    doc: "PATH of job tasks. Empty: the server's own PATH.",
  },
  wdlEngine: {
    env: 'RUNYARD_WDL_ENGINE',
    schema: Type.Union(['', 'toil', 'cromwell', 'miniwdl'].map((d) => Type.Literal(d))),
    default: '' as '' | 'toil' | 'cromwell' | 'miniwdl',
    doc: "WDL driver of a workspace's engine server when it is first used (`runyard admin workspace set-engine` changes it later): toil (toil-wdl-runner, run as the job's task), cromwell (a Cromwell server at cromwellUrl) or miniwdl. Empty: toil when toil-wdl-runner is on the task PATH, else miniwdl when miniwdl is, else toil.",
  },
  cromwellUrl: {
    env: 'RUNYARD_CROMWELL_URL',
    schema: Type.String({ pattern: '^(|https?://[^\\s?#@]+)$' }),
    default: '',
    doc: 'Base URL of an external Cromwell server (http or https, no credentials, query or fragment; e.g. http://cromwell:8000) for workspaces whose engine server uses the cromwell driver and has no URL of its own. It wins over cromwellJar.',
  },
  cromwellJar: {
    env: 'RUNYARD_CROMWELL_JAR',
    schema: Type.String(),
    default: '',
    doc: 'A Cromwell jar (cromwell-<version>.jar): workspaces on the cromwell driver without a URL of their own get a Cromwell server that Runyard starts (`java -jar <jar> server`, in the task sandbox, listening on 127.0.0.1) and stops with their engine server, its files in <dataDir>/engine-servers/<workspace>. Empty: the cromwell driver needs a URL (cromwellUrl).',
  },
  cromwellConfigFile: {
    env: 'RUNYARD_CROMWELL_CONFIG',
    schema: Type.String(),
    default: '',
    doc: "A Cromwell configuration file (HOCON) for the servers Runyard starts (-Dconfig.file): e.g. a database so that Cromwell keeps its workflows across its restarts. Runyard still sets the port, the interface (127.0.0.1) and the Local backend's root.",
  },
  java: {
    env: 'RUNYARD_JAVA',
    schema: Type.String(),
    default: '',
    doc: 'The java program that runs the Cromwell jar. Empty: java on the task PATH.',
  },
  cromwellStartTimeoutMs: {
    env: 'RUNYARD_CROMWELL_START_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 1000, maximum: 3_600_000 }),
    default: 180_000,
    doc: 'How long a Cromwell server that Runyard starts has to answer (GET /engine/v1/status) before the start fails and the server is stopped.',
  },
  cromwellExecutionsDir: {
    env: 'RUNYARD_CROMWELL_EXECUTIONS_DIR',
    schema: Type.String(),
    default: '',
    doc: "Where the Cromwell server keeps its calls' directories (its cromwell-executions), when it runs on this machine: WDL jobs of the cromwell driver read their calls' logs and output files there (the sandbox shows it to them read-only). Empty: only what the sandbox shows anyway can be copied.",
  },
  containerRuntime: {
    env: 'RUNYARD_CONTAINER_RUNTIME',
    schema: Type.Union(['', 'docker', 'podman'].map((r) => Type.Literal(r))),
    default: '',
    doc: 'Container runtime for container (bash) jobs, docker or podman; the server refuses to start when it is not on the task PATH. Empty: jobs run on the host, in the sandbox.',
  },
  jobImages: {
    env: 'RUNYARD_JOB_IMAGES',
    schema: Type.Union([Type.Literal('pull'), Type.Literal('host')]),
    default: 'pull',
    doc: "What a container (bash) job of a workflow with an image runs in, without a container runtime (RUNYARD_CONTAINER_RUNTIME): pull (the image is pulled from its registry with the job owner's linked account, and its root filesystem is the task's, read-only, in the sandbox) or host (the host's system, in the sandbox, as on a site whose jobs use the host's tools; each job's log says so).",
  },
  imageCacheDir: {
    env: 'RUNYARD_IMAGE_CACHE_DIR',
    schema: Type.String(),
    default: '',
    doc: "Where the images of container jobs are kept: one OCI layout of their layers (each stored once) and each image unpacked once, read-only, shared by every job that runs in it. On Slurm, a directory every node sees at the same path (the data directory's is, when it is on the cluster's shared file system). Empty: <dataDir>/images.",
  },
  imageCacheLimitGiB: {
    env: 'RUNYARD_IMAGE_CACHE_LIMIT_GIB',
    schema: Type.Number({ minimum: 0, maximum: 1_000_000 }),
    default: 50,
    doc: 'The most the image cache keeps, in GiB of unpacked images (their layers in the OCI layout, shared between images, are not counted): after each pull, the least recently used images that no job uses (initializing, running or aborting) are removed until the cache is under it; an image jobs use is kept even beyond it. 0 keeps no image that no job uses. `runyard admin images list|prune` shows and prunes the cache.',
  },
  registryMirrors: {
    env: 'RUNYARD_REGISTRY_MIRRORS',
    schema: Type.Record(Type.String({ pattern: '^[a-z0-9.-]+(:[0-9]+)?$' }), Type.String({ pattern: '^[a-z0-9.-]+(:[0-9]+)?$' })),
    default: {} as Record<string, string>,
    doc: 'JSON object of registry to mirror host, e.g. {"docker.io": "mirror.lab.org:5000"}: images of that registry are pulled from the mirror first (then from the registry), with the operator\'s account at the mirror (registryMirrorAuthFile) or anonymously; the mirror\'s answer is then the access check. A mirror named in insecureRegistries is spoken to over plain HTTP.',
  },
  registryMirrorAuthFile: {
    env: 'RUNYARD_REGISTRY_MIRROR_AUTH_FILE',
    schema: Type.String(),
    default: '',
    doc: 'A docker-style auth file (`{"auths": {"<mirror host>": {"auth": "base64(user:password)"}}}`, as `docker login` writes it) with the operator\'s accounts at the mirrors of registryMirrors; read at start. Empty: the mirrors are pulled from anonymously.',
  },
  imageRecheckSeconds: {
    env: 'RUNYARD_IMAGE_RECHECK_SECONDS',
    schema: Type.Number({ minimum: 0, maximum: 86_400 }),
    default: 60,
    doc: "How long a registry's answer for an image (the digest its reference names, given to one account) is used before the registry is asked again: a job of an image pulled within that time starts without asking it (some 20 ms). A tag moved, or an access revoked, at the registry is seen after at most this long; another account, or a changed password, always asks. 0: every pull asks the registry.",
  },
  insecureRegistries: {
    env: 'RUNYARD_INSECURE_REGISTRIES',
    schema: Type.Array(Type.String({ pattern: '^[a-z0-9.-]+(:[0-9]+)?$' })),
    default: [] as string[],
    doc: 'Comma-separated registries (host or host:port) that images are pulled from over plain HTTP or without checking their certificate: a registry on the local network.',
  },
  sandbox: {
    env: 'RUNYARD_SANDBOX',
    schema: Type.Union([Type.Literal('bwrap'), Type.Literal('none')]),
    default: 'bwrap',
    doc: "How job tasks are confined: bwrap (bubblewrap: the task sees a read-only system and its own directories, in namespaces of its own, as user nobody; the server refuses to start when bwrap is missing) or none (tasks run as the server's user and see all it sees; a warning at every start and a line in each job's log say so).",
  },
  taskNetwork: {
    env: 'RUNYARD_TASK_NETWORK',
    schema: Type.Union(TASK_NETWORKS.map((n) => Type.Literal(n))),
    default: 'outbound',
    doc: "Network of sandboxed job tasks and sessions: outbound (a network of their own that reaches the internet through slirp4netns, but not the host's loopback, its own addresses, or the private, link-local and metadata ranges; needs slirp4netns, nftables, iproute2 and util-linux on the task PATH), none (only a loopback of their own) or host (the host's network, every service on its loopback included: the server warns at every start). A queue's own setting (`taskNetwork` of POST /api/runyard/admin/queues, `runyard queue create --task-network`) wins for its jobs.",
  },
  taskUid: {
    env: 'RUNYARD_TASK_UID',
    schema: Type.Integer({ minimum: 1, maximum: 4_294_967_294 }),
    default: 65534,
    doc: "The host uid that job tasks and sessions run as when the server runs as root (never root: a task that escaped its sandbox, or a file it left, is this user's). Their own directories are given to it before they start; the rest of the data directory stays the server's (mode 0700). A server that is not root runs tasks as its own uid, as nobody in a user namespace.",
  },
  taskGid: {
    env: 'RUNYARD_TASK_GID',
    schema: Type.Integer({ minimum: 1, maximum: 4_294_967_294 }),
    default: 65534,
    doc: 'The host gid of job tasks and sessions of a server that runs as root (with RUNYARD_TASK_UID); they get no other group.',
  },
  cgroups: {
    env: 'RUNYARD_CGROUPS',
    schema: Type.Union([Type.Literal('auto'), Type.Literal('none')]),
    default: 'auto',
    doc: "How job tasks are held to their CPUs and memory: auto (a cgroup per task under the server's own: v2 where the unified hierarchy has the memory and cpu controllers, else v1 where both are mounted and writable) or none; without limits each job's log says so.",
  },
  nativeSpawn: {
    env: 'RUNYARD_NATIVE_SPAWN',
    schema: Type.Union([Type.Literal('auto'), Type.Literal('off')]),
    default: 'auto',
    doc: "How the spawner process starts the local executor's tasks: auto (posix_spawn through the native module that the build makes where a C compiler and Node's headers are found; else Node's spawn) or off (Node's spawn, which forks the spawner).",
  },
  nextflowBin: {
    env: 'RUNYARD_NEXTFLOW_BIN',
    schema: Type.String(),
    default: '',
    doc: 'Path of the nextflow executable. Empty: nextflow is looked up on the task PATH.',
  },
  nextflowHome: {
    env: 'RUNYARD_NEXTFLOW_HOME',
    schema: Type.String(),
    default: '',
    doc: "The operator's Nextflow home (NXF_HOME: framework/<version>/, capsule/, plugins/), which tasks read but never write. Empty: ~/.nextflow of the server's user when it exists, else <dataDir>/nextflow-home.",
  },
  nextflowVersions: {
    env: 'RUNYARD_NEXTFLOW_VERSIONS',
    schema: Type.Array(Type.String({ pattern: '^[0-9]+\\.[0-9]+\\.[0-9][0-9a-z.-]*$' })),
    default: [] as string[],
    doc: 'Comma-separated Nextflow versions installed in the Nextflow home. Empty: those whose framework jar is in <home>/framework/<version>/.',
  },
  nextflowDownload: {
    env: 'RUNYARD_NEXTFLOW_DOWNLOAD',
    schema: Type.Boolean(),
    default: false,
    doc: "Whether a job may ask for a Nextflow version that is not installed: its launcher then downloads it into a home of the job's workspace. Off: such a job is refused at submission (400, listing the installed versions).",
  },
  sessionCommandVscode: {
    env: 'RUNYARD_SESSION_COMMAND_VSCODE',
    schema: Type.String(),
    default: '',
    doc: "Command that serves a VS Code interactive session's web UI (e.g. code-server): a command line split on white space, run without a shell in the session's sandbox with its home as working directory. Empty: creating or resuming a vscode session is refused (400, naming this setting).",
  },
  sessionCommandRstudio: {
    env: 'RUNYARD_SESSION_COMMAND_RSTUDIO',
    schema: Type.String(),
    default: '',
    doc: "Command that serves an RStudio interactive session's web UI (e.g. rserver), run as sessionCommandVscode. Empty: creating or resuming an rstudio session is refused (400, naming this setting). Jupyter sessions (backend regular) need no setting: jupyter on the task PATH.",
  },
  sessionCommandSpark: {
    env: 'RUNYARD_SESSION_COMMAND_SPARK',
    schema: Type.String(),
    default: '',
    doc: "Command that serves a Spark interactive session's web UI (e.g. a Jupyter with a Spark kernel), run as sessionCommandVscode. Empty: creating or resuming a spark session is refused (400, naming this setting).",
  },
  s3TaskCredentials: {
    env: 'RUNYARD_S3_TASK_CREDENTIALS',
    schema: Type.Union(['workspace', 'storage', 'none'].map((c) => Type.Literal(c))),
    default: 'workspace',
    doc: "With the s3 storage backend, the keys a Nextflow task gets for s3:// paths: workspace (its workspace's keys from RUNYARD_S3_WORKSPACE_CREDENTIALS, none when it has no entry), storage (the storage keys, which reach every workspace's bucket) or none. Tasks always get the endpoint and region.",
  },
  s3WorkspaceCredentials: {
    env: 'RUNYARD_S3_WORKSPACE_CREDENTIALS',
    schema: Type.Record(
      Type.String({ pattern: '^[0-9a-f]{24}$' }),
      Type.Object(
        { accessKeyId: Type.String({ minLength: 1 }), secretAccessKey: Type.String({ minLength: 1 }) },
        { additionalProperties: false },
      ),
    ),
    default: {} as Record<string, { accessKeyId: string; secretAccessKey: string }>,
    secret: true,
    doc: 'JSON object of workspace id to {"accessKeyId", "secretAccessKey"}: S3 keys that reach only that workspace\'s bucket (runyard-<workspace id>), given to its Nextflow tasks.',
  },
  deletionPollMs: {
    env: 'RUNYARD_DELETION_POLL_MS',
    schema: Type.Integer({ minimum: 10, maximum: 600_000 }),
    default: 2000,
    doc: 'Milliseconds between passes of the deletion worker, which deletes the blobs of folders scheduled for deletion; a deletion requested in the same process wakes it at once.',
  },
  logSyncMs: {
    env: 'RUNYARD_LOG_SYNC_MS',
    schema: Type.Integer({ minimum: 0, maximum: 3_600_000 }),
    default: 10000,
    doc: "With the s3 or azure storage backend: milliseconds between uploads of a running job's logs to the store (0: only when the job ends, when its logs, results and work directory are uploaded).",
  },
  storageBackend: {
    env: 'RUNYARD_STORAGE_BACKEND',
    schema: Type.Union(['local', 's3', 'azure'].map((b) => Type.Literal(b))),
    default: 'local',
    doc: 'Blob store of workspace data: local (buckets are folders under <dataDir>/storage), s3 or azure.',
  },
  s3Endpoint: {
    env: 'RUNYARD_S3_ENDPOINT',
    schema: Type.String(),
    default: '',
    doc: "URL of an S3-compatible store. Empty: AWS's endpoint for the region.",
  },
  s3Region: { env: 'RUNYARD_S3_REGION', schema: Type.String({ minLength: 1 }), default: 'us-east-1', doc: 'S3 region.' },
  s3AccessKeyId: {
    env: 'RUNYARD_S3_ACCESS_KEY_ID',
    schema: Type.String(),
    default: '',
    secret: true,
    doc: "S3 access key id. Empty (with an empty secret): the AWS SDK's default credential chain.",
  },
  s3SecretAccessKey: {
    env: 'RUNYARD_S3_SECRET_ACCESS_KEY',
    schema: Type.String(),
    default: '',
    secret: true,
    doc: 'S3 secret access key; never logged.',
  },
  s3ForcePathStyle: {
    env: 'RUNYARD_S3_FORCE_PATH_STYLE',
    schema: Type.Boolean(),
    default: false,
    doc: 'Path-style S3 requests (bucket in the path, not the host name), which most S3-compatible stores need.',
  },
  azureConnectionString: {
    env: 'RUNYARD_AZURE_CONNECTION_STRING',
    schema: Type.String(),
    default: '',
    secret: true,
    doc: 'Azure storage connection string; when given, the account name, key and endpoint keys are not used.',
  },
  azureAccountName: {
    env: 'RUNYARD_AZURE_ACCOUNT_NAME',
    schema: Type.String({ pattern: '^([a-z0-9]{3,24})?$' }),
    default: '',
    doc: 'Azure storage account name.',
  },
  azureAccountKey: {
    env: 'RUNYARD_AZURE_ACCOUNT_KEY',
    schema: Type.String(),
    default: '',
    secret: true,
    doc: 'Azure storage account key (base64); never logged.',
  },
  azureBlobEndpoint: {
    env: 'RUNYARD_AZURE_BLOB_ENDPOINT',
    schema: Type.String(),
    default: '',
    doc: 'Azure Blob service URL. Empty: https://<account>.blob.core.windows.net.',
  },
} as const satisfies Record<string, { env: string; schema: TSchema; default: unknown; doc: string; secret?: boolean }>;

type Keys = typeof CONFIG_KEYS;
export type Config = Readonly<{ [K in keyof Keys]: Static<Keys[K]['schema']> }>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Converts an environment string to the type its schema wants; a value it cannot convert stays a string and fails the check. */
function fromEnv(schema: TSchema, raw: string): unknown {
  if (schema.type === 'integer' && /^-?\d+$/.test(raw.trim())) return Number(raw.trim());
  if (schema.type === 'number' && raw.trim() !== '' && Number.isFinite(Number(raw.trim()))) return Number(raw.trim());
  if (schema.type === 'boolean') {
    const word = raw.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(word)) return true;
    if (['false', '0', 'no', ''].includes(word)) return false;
  }
  if (schema.type === 'array')
    return raw
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
  if (schema.type === 'object') {
    try {
      return raw.trim() ? JSON.parse(raw) : {};
    } catch {
      return raw;
    }
  }
  return raw;
}

function readConfigFile(file: string, problems: string[]): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    problems.push(`RUNYARD_CONFIG_FILE ${file}: must hold a JSON object`);
  } catch (e) {
    problems.push(`RUNYARD_CONFIG_FILE ${file}: ${(e as Error).message}`);
  }
  return {};
}

/** Builds the frozen configuration; precedence: overrides > environment > config file > defaults. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const file = env.RUNYARD_CONFIG_FILE ? readConfigFile(env.RUNYARD_CONFIG_FILE, problems) : {};
  for (const key of Object.keys(file)) {
    if (!Object.hasOwn(CONFIG_KEYS, key)) problems.push(`config file key "${key}" is not a configuration key`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(CONFIG_KEYS) as [keyof Keys, Keys[keyof Keys]][]) {
    let value: unknown = spec.default;
    let source = 'default';
    if (Object.hasOwn(file, key)) [value, source] = [file[key], `config file key "${key}"`];
    const raw = env[spec.env];
    if (raw !== undefined) [value, source] = [fromEnv(spec.schema, raw), spec.env];
    if (Object.hasOwn(overrides, key)) [value, source] = [overrides[key], key];
    if (!Value.Check(spec.schema, value)) {
      const first = Value.Errors(spec.schema, value).First();
      const shown = 'secret' in spec && spec.secret ? '(hidden)' : JSON.stringify(value);
      problems.push(`${source}=${shown}: ${first?.message ?? 'invalid value'}`);
    }
    out[key] = value;
  }
  if (Boolean(out.tlsCertFile) !== Boolean(out.tlsKeyFile)) {
    problems.push('RUNYARD_TLS_CERT_FILE and RUNYARD_TLS_KEY_FILE must be given together');
  }
  problems.push(...storageProblems(out));
  problems.push(...sessionsUrlProblems(out));
  if (typeof out.instanceTypesFile === 'string' && out.instanceTypesFile) {
    try {
      readInstanceTypesFile(out.instanceTypesFile);
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  out.dataDir = path.resolve(out.dataDir as string);
  out.secretKeyFile = out.secretKeyFile ? path.resolve(out.secretKeyFile as string) : path.join(out.dataDir as string, 'secret.key');
  for (const key of ['cromwellJar', 'cromwellConfigFile', 'webDir', 'registryMirrorAuthFile'] as const)
    if (out[key]) out[key] = path.resolve(out[key] as string);
  out.imageCacheDir = out.imageCacheDir ? path.resolve(out.imageCacheDir as string) : path.join(out.dataDir as string, 'images');
  // Tasks get an explicit environment; their PATH defaults to the server's own.
  if (!out.taskPath) out.taskPath = env.PATH || '/usr/local/bin:/usr/bin:/bin';
  if (!out.wdlEngine) out.wdlEngine = defaultWdlEngine(out.taskPath as string);
  out.cromwellUrl = (out.cromwellUrl as string).replace(/\/+$/, '');
  if (out.sessionsUrl) out.sessionsUrl = new URL(out.sessionsUrl as string).origin;
  return Object.freeze(out) as Config;
}

/** The WDL driver when RUNYARD_WDL_ENGINE is empty: the first of toil and miniwdl installed on the task PATH, else toil. */
export function defaultWdlEngine(taskPath: string): 'toil' | 'miniwdl' {
  if (onPath('toil-wdl-runner', taskPath)) return 'toil';
  return onPath('miniwdl', taskPath) ? 'miniwdl' : 'toil';
}

/** Whether an executable file of that name is in a directory of the PATH (as executors/find-executable.ts finds it; config imports nothing above it). */
function onPath(name: string, searchPath: string): boolean {
  return searchPath.split(':').some((dir) => {
    if (!path.isAbsolute(dir)) return false;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/** A service URL for storage: http(s), no credentials or query in it. Null when fine; the message never quotes the value. */
function serviceUrlProblem(env: string, value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${env} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${env} must be an http or https URL`;
  if (url.username || url.password) return `${env} must not carry credentials; use the storage key settings`;
  if (url.search || url.hash) return `${env} must not have a query string or fragment`;
  return null;
}

/** Settings of the chosen blob store that only make sense together. */
function storageProblems(out: Record<string, unknown>): string[] {
  const problems = [
    serviceUrlProblem('RUNYARD_S3_ENDPOINT', out.s3Endpoint),
    serviceUrlProblem('RUNYARD_AZURE_BLOB_ENDPOINT', out.azureBlobEndpoint),
  ].filter((p): p is string => p !== null);
  if (Boolean(out.s3AccessKeyId) !== Boolean(out.s3SecretAccessKey)) {
    problems.push('RUNYARD_S3_ACCESS_KEY_ID and RUNYARD_S3_SECRET_ACCESS_KEY must be given together');
  }
  if (out.storageBackend === 'azure' && !out.azureConnectionString && !(out.azureAccountName && out.azureAccountKey)) {
    problems.push(
      'RUNYARD_STORAGE_BACKEND=azure needs RUNYARD_AZURE_CONNECTION_STRING, or RUNYARD_AZURE_ACCOUNT_NAME and RUNYARD_AZURE_ACCOUNT_KEY',
    );
  }
  return problems;
}

/** Hosts that listen on every interface: the URL the server prints names 127.0.0.1 instead. */
const WILDCARD_HOSTS = ['0.0.0.0', '::'];
const bracketed = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** The host name of the platform's URL, known from the configuration alone: the public URL's, else the printed listen address's. */
function platformHostName(out: Record<string, unknown>): string {
  if (out.publicUrl) return new URL(out.publicUrl as string).hostname;
  const host = out.host as string;
  return new URL(`http://${bracketed(WILDCARD_HOSTS.includes(host) ? '127.0.0.1' : host)}`).hostname;
}

/**
 * RUNYARD_SESSIONS_URL must name another host than the platform's: cookies are scoped by host
 * name, not port, so the dashboard's cookie would reach sessions on another port of the same host.
 */
function sessionsUrlProblems(out: Record<string, unknown>): string[] {
  if (typeof out.sessionsUrl !== 'string' || !out.sessionsUrl) return [];
  let sessions: URL;
  let platform: string;
  try {
    sessions = new URL(out.sessionsUrl);
    platform = platformHostName(out);
  } catch {
    return ['RUNYARD_SESSIONS_URL is not a URL'];
  }
  if (sessions.hostname !== platform) return [];
  return [
    `RUNYARD_SESSIONS_URL must name another host name than the platform's (${platform}): cookies are not isolated by port, so the dashboard's sign-in would reach the sessions' pages. Use a second DNS name of this server (e.g. sessions.example.org).`,
  ];
}

/** The platform's URL as people reach it: the public URL, else the listen address on `port` (127.0.0.1 for every interface). */
export function platformUrlOf(config: Pick<Config, 'publicUrl' | 'host' | 'tlsCertFile'>, port: number): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const host = WILDCARD_HOSTS.includes(config.host) ? '127.0.0.1' : config.host;
  return `${config.tlsCertFile ? 'https' : 'http'}://${bracketed(host)}:${port}`;
}

/** The other loopback name of a platform reached on this machine only, for the sessions' origin by default. */
const LOOPBACK_SWAP: Record<string, string> = { '127.0.0.1': 'localhost', localhost: '127.0.0.1' };

/**
 * How sessions' web UIs are served: 'own' (an origin of their own, RUNYARD_SESSIONS_URL or the
 * loopback swap) or 'shared' (the platform's origin). Known from the configuration; the default
 * origin's port may wait for the server to listen (sessionsUrlOf).
 * The swap is only made for a server that listens on a loopback name (or whose public URL is one):
 * one listening on every interface is reached under names nobody here knows.
 */
export function sessionsOriginKind(config: Pick<Config, 'sessionsUrl' | 'publicUrl' | 'host'>): 'own' | 'shared' {
  if (config.sessionsUrl) return 'own';
  const host = config.publicUrl ? new URL(config.publicUrl).hostname : config.host.toLowerCase();
  return Object.hasOwn(LOOPBACK_SWAP, host) ? 'own' : 'shared';
}

/**
 * The origin of sessions' web UIs (`http://localhost:8080`, no trailing slash) for a platform at
 * `platformUrl` (platformUrlOf), or null when they share the platform's origin.
 */
export function sessionsUrlOf(config: Pick<Config, 'sessionsUrl' | 'publicUrl' | 'host'>, platformUrl: string): string | null {
  if (config.sessionsUrl) return config.sessionsUrl;
  if (sessionsOriginKind(config) === 'shared') return null;
  const url = new URL(platformUrl);
  url.hostname = LOOPBACK_SWAP[url.hostname] ?? url.hostname;
  return url.origin;
}

/** The warning at start when sessions share the platform's origin: why it is a risk, and the setting that ends it. */
export function sharedSessionsOriginWarning(platformHost: string): string {
  return (
    `Interactive sessions' web UIs are served on the platform's own origin (${platformHost}): JavaScript on a session's pages ` +
    "(a notebook's output, or the server of a shared session someone else controls) can call the API as the person viewing it, " +
    'with their dashboard sign-in. Give sessions a host name of their own: set RUNYARD_SESSIONS_URL (e.g. https://sessions.example.org, ' +
    'a second DNS name of this server; see docs/sessions.md).'
  );
}

/** The database URL with the SQLite default filled in. */
export function databaseUrlOf(config: Config): string {
  return config.databaseUrl || `sqlite:${path.join(config.dataDir, 'runyard.db')}`;
}
