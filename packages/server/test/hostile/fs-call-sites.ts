// The files of packages/server/src that use node:fs or node:fs/promises, the names each uses, and why its
// raw calls are safe where tasks are hostile (docs/security.md, "The server never trusts a path a task can
// write"). Checked by fs-call-sites.test.ts: a file that uses a name its entry does not list fails it, and
// so does an entry that lists a name or a file no longer used. storage/beneath.ts, which owns the no-follow
// calls, is not listed.
//
// Kinds:
// - server: its raw calls reach only files and directories of the server's own (its settings, keys and
//   database, git's cache, the cgroup filesystem, /proc, a job's control directory, which its task sees
//   read-only), never a directory a task can write.
// - task-writable: it reaches directories a task can write (a job's logs, results, work or array
//   directory, a session's home, runtime or mounts), there only through storage/beneath.ts. Its raw
//   calls make the server's own directories (mkdir) or look without following (lstat, existsSync); a call
//   in PATH_FOLLOWING fails the test unless `kept` gives that call its own reason.
// - task-side: a program that runs inside the task's sandbox, as the task: its calls have only the
//   task's rights (the WDL engines' task programs).

/** A use of the whole module (passed on, or a member named at run time): anything may follow a path. */
export const WHOLE_MODULE = '*';

/** Calls that follow a link in the path they are given, or act on what it names. */
export const PATH_FOLLOWING: ReadonlySet<string> = new Set(
  [
    'open',
    'opendir',
    'readFile',
    'writeFile',
    'appendFile',
    'rm',
    'rmdir',
    'unlink',
    'readdir',
    'stat',
    'chown',
    'chmod',
    'rename',
    'symlink',
    'link',
    'cp',
    'copyFile',
    'truncate',
    'utimes',
  ]
    .flatMap((name) => [name, `${name}Sync`])
    .concat(['createReadStream', 'createWriteStream', WHOLE_MODULE]),
);

export interface FsCallSite {
  /** Every name the file uses from node:fs and node:fs/promises (type-only imports aside). */
  names: string[];
  kind: 'server' | 'task-writable' | 'task-side';
  /** Why its raw calls never reach what a task can write; or which such directories it reaches, through beneath, and what its raw calls are for. */
  why: string;
  /** task-writable only: a path-following call it keeps, with why that one is safe. */
  kept?: Record<string, string>;
}

/** The job's control directory (<dataDir>/run/<job>): its task sees it read-only, and makes no name in it. */
const CONTROL = "the job's control directory, which its task sees read-only";
const WDL_TASK = "runs inside the task's sandbox, as the task (a WDL engine's task program)";
const TLS = 'the TLS certificate and key files the operator configured';

export const FS_CALL_SITES: Record<string, FsCallSite> = {
  'app.ts': { names: ['readFileSync'], kind: 'server', why: TLS },
  'config.ts': {
    names: ['accessSync', 'constants', 'readFileSync', 'statSync'],
    kind: 'server',
    why: "the operator's settings file and the programs it names",
  },
  'images/file-lock.ts': {
    names: ['closeSync', 'openSync', 'readFileSync', 'statSync', 'unlinkSync', 'writeSync'],
    kind: 'server',
    why: "the image cache's lock file (<dataDir>/images/oci.lock), which no task sees",
  },
  'images/image-cache.ts': {
    names: ['existsSync', 'mkdirSync', 'readFileSync', 'renameSync', 'writeFileSync'],
    kind: 'server',
    why: "the image cache's own folders under <dataDir>/images (no task writes there; an unpacked image is read-only), and the config kept beside each image (configs/, written by the server)",
  },
  'images/cache-inventory.ts': {
    names: ['existsSync', 'lstatSync', 'readdirSync', 'renameSync', 'rmSync'],
    kind: 'server',
    why: "the image cache's own folders (no task writes there): rootfs/ is listed with entry types (a link is not an image), an image's folder renamed out of sight, its config and meta files removed (rm unlinks a link)",
  },
  'images/image-meta.ts': {
    names: ['closeSync', 'constants', 'fstatSync', 'mkdirSync', 'openSync', 'readFileSync', 'renameSync', 'writeFileSync'],
    kind: 'server',
    why: 'the meta file kept beside each cached image (meta/, written by the server only): read through an O_NOFOLLOW descriptor checked to be a regular file, written to a new file (wx) renamed over it',
  },
  'images/remove-tree.ts': {
    names: ['existsSync', 'rmSync'],
    kind: 'server',
    why: 'a read-only image tree in the cache, made writable by chmod -R (which skips links) and removed by rm -r, which unlinks links and never follows them',
  },
  'images/shared-lock.ts': {
    names: ['mkdirSync'],
    kind: 'server',
    why: "makes the image cache's folder for its lock files",
  },
  'images/tree-size.ts': {
    names: ['lstatSync', 'readdirSync'],
    kind: 'server',
    why: 'sizes an unpacked image in the cache: lstat on every entry, links counted as themselves and never followed',
  },
  'images/image-config.ts': {
    names: ['lstatSync', 'readFileSync'],
    kind: 'server',
    why: "the image cache's OCI layout, written by skopeo (blobs by digest, regular files: lstat checks before the read); no task sees it",
  },
  'images/rootfs-prepare.ts': {
    names: ['closeSync', 'lstatSync', 'mkdirSync', 'openSync', 'readFileSync', 'rmSync', 'unlinkSync'],
    kind: 'server',
    why: "an image just unpacked, before any task sees it (nothing can change it meanwhile): every call looks with lstat first, replaces an image's link rather than following it, and reads /etc/passwd and /etc/group only as regular files",
  },
  'executors/sandbox/image-root.ts': {
    names: ['existsSync', 'lstatSync', 'readdirSync', 'readlinkSync'],
    kind: 'server',
    why: "an unpacked image in the cache (read-only, shared, no task writes it): its entries are listed with lstat and its links read, never followed; runyard-enter's build",
  },
  'images/mirror-settings.ts': {
    names: ['readFileSync'],
    kind: 'server',
    why: "the operator's mirror auth file (RUNYARD_REGISTRY_MIRROR_AUTH_FILE), a setting read at start",
  },
  'images/tool-home.ts': {
    names: ['mkdirSync', 'mkdtempSync', 'rmSync', 'writeFileSync'],
    kind: 'server',
    why: "a private 0700 home for skopeo and umoci with the pull's auth file, under the server's own data directory",
  },
  'engines/container-runtime.ts': {
    names: ['copyFileSync', 'mkdtempSync', 'rmSync'],
    kind: 'server',
    why: "the start-up probe's root filesystem: a fresh private folder of the server's under the system's temporary directory, holding a copy of runyard-enter, removed after",
  },
  'engines/nextflow-home.ts': {
    names: ['existsSync', 'mkdirSync', 'readdirSync'],
    kind: 'task-writable',
    why: "makes a workspace's Nextflow downloads home, which its tasks write (mkdir, nothing else there); otherwise looks at the operator's Nextflow home, which tasks only read",
    kept: { readdirSync: "lists framework/ (the installed versions) in the operator's Nextflow home, which tasks only read" },
  },
  'engines/nextflow.ts': {
    names: ['mkdir', 'readdirSync', 'writeFile'],
    kind: 'server',
    why: `the attempt's params and config files in ${CONTROL}, and the host's /etc (the names of Java's configuration folders)`,
  },
  'engines/session/command.ts': {
    names: ['mkdirSync'],
    kind: 'task-writable',
    why: "makes a session's home, runtime and mounts directories in the server's session directory (mkdir), before the session writes them",
  },
  'engines/session/jupyter.ts': {
    names: ['chmodSync', 'lstatSync', 'mkdirSync', 'symlinkSync'],
    kind: 'task-writable',
    why: "makes a session's directories and <home>/mounts; reads the session's log through beneath",
    kept: {
      chmodSync: 'the runtime directory itself, just made by the server in its private parent, which no session writes',
      symlinkSync:
        'makes the link <home>/mounts only where lstatSync found nothing of that name: the link itself is made (EEXIST if the session raced), nothing is followed',
    },
  },
  'engines/wdl/cromwell-server.ts': {
    names: ['access', 'constants', 'lchown', 'lstat', 'mkdir', 'readdir'],
    kind: 'task-writable',
    why: "the managed Cromwell's directories, which its calls write, through beneath (removeBeneath, ownDirBeneath, openBeneath); raw calls on their parent (made, lstat, lchown back to the server), the operator's jar and configuration, /etc",
    kept: {
      readdir:
        "lists /etc (Debian's Java configuration) and control/ of the server's run directory (<dataDir>/run/engine-servers/<ws>), which Cromwell never sees",
    },
  },
  'engines/wdl/cromwell-task/call-logs.mts': { names: ['copyFile'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/cromwell-task/control.mts': { names: ['readFile'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/cromwell-task/engine-log.mts': {
    names: ['constants', 'createWriteStream', 'existsSync', 'open'],
    kind: 'task-side',
    why: `${WDL_TASK}; the managed Cromwell's calls can write where it reads the workflow's log (cromwell-workflow-logs/final): opened one name at a time with O_NOFOLLOW from the folder's handle, copied only when a regular file`,
  },
  'engines/wdl/cromwell-task/failure.mts': { names: ['readFile'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/cromwell-task/main.mts': { names: ['writeFile'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/cromwell-task/outputs.mts': { names: ['readFile'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/cromwell-task/submission.mts': { names: ['readFile', 'rename', 'writeFile'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/cromwell.ts': {
    names: ['cp', 'mkdir', 'readdir', 'rename', 'rm', 'writeFile'],
    kind: 'server',
    why: `the job's staged inputs (its task sees them read-only) moved into the managed Cromwell's inputs directory (the server's, read-only to Cromwell), and the attempt's control files in ${CONTROL}`,
  },
  'engines/wdl/miniwdl-task/call-logs.mts': { names: ['copyFile', 'open', 'readdir', 'stat'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/miniwdl-task/control.mts': { names: ['readFile'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/miniwdl-task/failure.mts': { names: ['readFile'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/miniwdl-task/log-split.mts': { names: ['createWriteStream'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/miniwdl-task/main.mts': { names: ['open'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/miniwdl-task/outputs.mts': { names: ['readFile', 'realpath'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/miniwdl-task/sources.mts': {
    names: ['access', 'constants', 'copyFile', 'mkdir', 'readFile', 'rm', 'stat'],
    kind: 'task-side',
    why: WDL_TASK,
  },
  'engines/wdl/miniwdl.ts': { names: ['writeFile'], kind: 'server', why: `the attempt's control file in ${CONTROL}` },
  'engines/wdl/task-shared/output-files.mts': { names: ['cp', 'mkdir', 'writeFile'], kind: 'task-side', why: WDL_TASK },
  'engines/wdl/toil.ts': { names: ['readFileSync'], kind: 'server', why: "the first line of the operator's toil runner program" },
  'engines/wdl/wdl-engine.ts': {
    names: ['mkdir', 'writeFile'],
    kind: 'server',
    why: `the attempt's inputs and failure files in ${CONTROL} (the failure file is bound writable as a file: its name stays the server's); the workflow's main file, which the repository may make a link to any host path, is read through beneath`,
  },
  'executors/array-run.ts': {
    names: ['mkdir', 'open'],
    kind: 'task-writable',
    why: "an array's directory (its rows write it) is removed, and its rows' logs directory made, through beneath; mkdir makes the array directory afresh",
    kept: {
      open: "makes each row's env file with 'wx' (O_CREAT | O_EXCL: an existing name, a link too, is refused) in the array directory just made afresh",
    },
  },
  'executors/find-executable.ts': {
    names: ['accessSync', 'constants', 'statSync'],
    kind: 'server',
    why: "programs on the operator's task PATH",
  },
  'executors/proc.ts': { names: ['readFileSync', 'readdirSync', 'readlinkSync'], kind: 'server', why: 'the /proc filesystem' },
  'executors/sandbox/bwrap.ts': {
    names: ['existsSync', 'lstatSync', 'readlinkSync'],
    kind: 'server',
    why: "the host's system directories (/, /etc) that the sandbox shows, and the server's /etc snapshot",
  },
  'executors/sandbox/cgroup.ts': {
    names: ['existsSync', 'mkdirSync', 'readdirSync', 'readFileSync', 'rmdirSync', 'writeFileSync'],
    kind: 'server',
    why: 'the cgroup filesystem (and /proc/self)',
  },
  'executors/sandbox/etc-snapshot.ts': {
    names: [
      'accessSync',
      'chmodSync',
      'constants',
      'copyFileSync',
      'mkdirSync',
      'mkdtempSync',
      'renameSync',
      'rmSync',
      'statSync',
      'writeFileSync',
    ],
    kind: 'server',
    why: "the host's /etc and the server's copies of it (a folder of the server's that tasks see read-only as their /etc)",
  },
  'executors/sandbox/limits.ts': {
    names: ['existsSync', 'readFileSync', 'writeFile', 'writeFileSync'],
    kind: 'server',
    why: `the attempt's memory-kill and limits records in ${CONTROL}; the cgroup filesystem (a pooled network's group)`,
  },
  'executors/sandbox/input-check.ts': {
    names: ['statSync'],
    kind: 'server',
    why: 'the inputs the server holds open, through its own handles (/proc/<server>/fd/<n>: the very files it checked)',
  },
  'executors/sandbox/network-pool.ts': {
    names: ['rmSync'],
    kind: 'server',
    why: "a pooled namespace's exit FIFO, in the server's folder for the tasks' network FIFOs",
  },
  'executors/sandbox/sandbox.ts': { names: ['mkdirSync'], kind: 'server', why: "the server's folder for the FIFOs of the tasks' networks" },
  'executors/sandbox/slirp-api.ts': {
    names: ['rm'],
    kind: 'server',
    why: "slirp4netns's API socket, in the server's folder for the tasks' network FIFOs",
  },
  'executors/sandbox/task-path.ts': {
    names: ['closeSync', 'lstatSync', 'openSync', 'readdirSync', 'readSync', 'realpathSync'],
    kind: 'server',
    why: "the folders of the task PATH, the host's (read at the server's start)",
  },
  'executors/sandbox/task-network.ts': { names: ['accessSync', 'constants'], kind: 'server', why: '/dev/net/tun' },
  'executors/slurm/image-on-node.ts': {
    names: ['constants', 'copyFile', 'rm'],
    kind: 'server',
    why: `the attempt's copy of runyard-enter in ${CONTROL}, which its task sees read-only`,
  },
  'executors/slurm/slurm-array.ts': {
    names: ['open', 'readFile', 'writeFile'],
    kind: 'task-writable',
    why: "an array's directory and the job's logs, which its rows write, through beneath (openBeneath, appendBeneath, removeBeneath, ownDirBeneath)",
    kept: {
      open: "the markers published-<i> and done, made with 'wx' in the array directory: an existing name, a link too, is refused",
      readFile: `the attempt's array record in ${CONTROL}`,
      writeFile: `the array record in ${CONTROL}; exit-<i>-255 in the array directory once Slurm holds none of its elements, only for a row with no exit marker (a name a row made there is one, so none is written over)`,
    },
  },
  'executors/slurm/slurm-executor.ts': {
    names: ['readFile', 'rm', 'writeFile'],
    kind: 'server',
    why: `the attempt's batch script, environment, id and limits files in ${CONTROL}`,
  },
  'executors/spawner/spawner-process.ts': {
    names: ['closeSync', 'constants', 'fstatSync', 'openSync', 'readdirSync', 'readFileSync', 'writeSync'],
    kind: 'task-writable',
    why: "the task's log, which the task writes: opened without following and checked on its descriptor",
    kept: {
      openSync:
        "opens the task's log with O_NOFOLLOW | O_NONBLOCK (a link or a FIFO is refused) and uses it only when fstat finds a regular file of one name; the log's directory is the server's; and a held input through /proc/<server>/fd/<n>, a magic link to the file the server checked, never a path looked up again",
      readdirSync: "/proc/self/fdinfo: this process's own descriptors, to close those it inherited",
      readFileSync: "/proc/self/fdinfo/<fd>: a descriptor's flags, this process's own",
    },
  },
  'executors/stop-command.ts': {
    names: ['readFile', 'writeFile'],
    kind: 'server',
    why: `the attempt's stop and out-of-memory probe argv files in ${CONTROL}`,
  },
  'executors/task-files.ts': {
    names: ['existsSync', 'mkdirSync'],
    kind: 'task-writable',
    why: "makes the attempt's control directory and the task's log, working and writable directories (mkdir); a log a task left in its place is looked at and removed through beneath",
  },
  'executors/wrapper.ts': {
    names: ['link', 'mkdir', 'open', 'readFileSync', 'unlink', 'writeFile'],
    kind: 'server',
    why: `the attempt's record and claim files in ${CONTROL} (the wrapper writes the record outside the sandbox)`,
  },
  'git/run-git.ts': { names: ['mkdtempSync'], kind: 'server', why: "git's private, empty HOME in the system's temporary directory" },
  'git/snapshot.ts': {
    names: ['existsSync', 'mkdir', 'rm'],
    kind: 'server',
    why: "the server's git cache (<dataDir>/git-cache) and the checkout it makes in a job's control directory; no task writes them",
  },
  'http/bound-server.ts': { names: ['readFileSync'], kind: 'server', why: TLS },
  'http/web-app.ts': { names: ['realpath', 'stat'], kind: 'server', why: "the dashboard's build (packages/web/dist)" },
  'instance-types/load.ts': { names: ['readFileSync'], kind: 'server', why: "the operator's instance types file" },
  'main.ts': {
    names: ['access', 'realpathSync'],
    kind: 'server',
    why: "the data directory, checked at start, and the server's own program",
  },
  'scheduler/array-progress.ts': {
    names: ['lstat'],
    kind: 'task-writable',
    why: "an array's directory, which its rows write: lstat of a marker there (the marker itself, never what a link names), the directory's parent being the server's",
  },
  'scheduler/attempt-runner.ts': {
    names: ['mkdirSync'],
    kind: 'task-writable',
    why: "makes the job's logs, results, work and control directories, which its task then writes (mkdir in the server's directories)",
  },
  'scheduler/outputs.ts': {
    names: ['existsSync'],
    kind: 'task-writable',
    why: 'removes what tasks wrote (staged inputs, control files with values, the S3/Azure local copies) through beneath; existsSync only looks whether there are staged inputs',
  },
  'scheduler/session-home.ts': {
    names: ['mkdir'],
    kind: 'task-writable',
    why: "a session's home, which the session writes, is looked at and removed through beneath; mkdir makes it again in the server's session directory",
  },
  'scheduler/session-mounts.ts': {
    names: ['mkdir'],
    kind: 'task-writable',
    why: "a session's mounts/ (the session writes it) and the workspace's storage area (jobs write it), through beneath; mkdir makes the server's own directories (the area, the staging directory, mounts/)",
  },
  'scheduler/session-image.ts': {
    names: ['lstatSync', 'readlinkSync'],
    kind: 'server',
    why: "finds jupyter in a session's unpacked image in the cache (read-only, shared, no task writes it): each component looked at with lstat, the image's links read and resolved inside its root, never followed on the host",
  },
  'scheduler/session-socket-dir.ts': {
    names: ['lstat', 'mkdir'],
    kind: 'server',
    why: "the private parent of the sessions' runtime directories, made and checked to be the server's own (0700); the runtime directories are removed through beneath",
  },
  'services/bootstrap.ts': { names: ['chmodSync', 'writeFileSync'], kind: 'server', why: "the server's initial-admin.json" },
  'services/hpc-clusters.ts': { names: ['stat'], kind: 'server', why: 'the shared directory an administrator gives for a Slurm cluster' },
  'staging/inputs.ts': {
    names: ['existsSync', 'mkdir', 'rm', 'symlink'],
    kind: 'task-writable',
    why: "stages a job's inputs into its staged inputs directory (control/inputs, the server's; its task sees it read-only); the local store's files, which jobs write, are held open through the store (beneath)",
    kept: {
      rm: "the job's staged inputs directory of an earlier attempt (the server's: its task sees it read-only)",
      symlink: "links to the store's files, made in the staged inputs directory (the server's)",
    },
  },
  'storage/blob-sync.ts': {
    names: ['createWriteStream', 'lutimes', 'mkdir', 'rename', 'rm'],
    kind: 'task-writable',
    why: 'pushes and pulls what tasks write (logs, results, work, session homes) through beneath: each file read from its checked descriptor, each pulled one written in a directory held by inDirBeneath',
    kept: {
      createWriteStream:
        "a new part file ('wx': O_EXCL) in a directory held by inDirBeneath (/proc/self/fd/<n>), or in one of the server's own (pullFile)",
      rename: 'that part file over its target, in the same held directory: rename follows no link of either name',
      rm: 'that part file, one name (no recursion), after a failed download',
    },
  },
  'storage/local.ts': {
    names: ['constants', 'createWriteStream', 'lstat', 'mkdir', 'open', 'realpathSync', 'rename', 'rmdir', 'statSync', 'unlink'],
    kind: 'task-writable',
    why: 'the local blob store, whose buckets hold what jobs write: keys are reached through beneath, files written and removed one name at a time in directories held by inDirBeneath',
    kept: {
      open: "a new temporary file ('wx': O_EXCL) in a directory held by inDirBeneath; a folder opened again through the magic link of the handle that reached it, never by its path",
      createWriteStream: "a new temporary file ('wx': O_EXCL) in a directory held by inDirBeneath",
      rename: 'a temporary file over its key, in the same held directory: rename follows no link of either name',
      unlink: "a key's own entry (a link is removed, not its target) or a temporary file, one name in a held directory",
      rmdir: 'an empty folder, one name in a held directory (pruneEmpty)',
      statSync: "a bucket's own directory, after its real path was checked to be inside the storage root",
    },
  },
  'store/private-files.ts': {
    names: ['chmodSync', 'closeSync', 'existsSync', 'mkdirSync', 'openSync'],
    kind: 'server',
    why: "the database's directory and files",
  },
  'store/secret-box.ts': {
    names: ['closeSync', 'openSync', 'readFileSync', 'writeSync'],
    kind: 'server',
    why: "the server's secret key file",
  },
  'store/wal-sync.ts': {
    names: ['closeSync', 'fdatasync', 'fdatasyncSync', 'fstatSync', 'openSync', 'statSync'],
    kind: 'server',
    why: "the SQLite database's WAL file",
  },
  'version.ts': { names: ['readFileSync'], kind: 'server', why: "the server's package.json" },
};
