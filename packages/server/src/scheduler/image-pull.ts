import type { Config } from '../config.js';
import { EngineError, type JobRow } from '../engines/engine.js';
import type { TaskSpec } from '../executors/executor.js';
import { taskHostUser } from '../executors/sandbox/sandbox.js';
import { appendLogLines } from '../executors/task-files.js';
import type { ImageCache, PulledImage, PullOptions } from '../images/image-cache.js';
import { DEFAULT_IMAGE_PATH, type ImageConfig } from '../images/image-config.js';
import { ImagePullError } from '../images/pull-error.js';
import { parseImageReference } from '../images/reference.js';
import type { RegistryCredentials } from '../images/tool-home.js';
import { unseal } from '../store/secret-box.js';
import type { AttemptRef, SchedulerContext } from './context.js';

/** Docker Hub's names: an account linked under any of them is Docker Hub's. */
const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/**
 * Pulls the image a task runs in (TaskSpec.image) into the shared cache, with the job's owner's
 * account at its registry when they linked one (`runyard user docker-login`; anonymously
 * otherwise), writing the pull's progress to the job's log, and readies the task to run in it:
 * the image's environment under the job's own variables, its PATH, its entrypoint before the
 * command, its user. Records the image's digest on the job as soon as it is resolved, so the cache keeps the
 * image while the job runs. A pull that fails throws an EngineError with the pull's own message (which never holds
 * the password).
 */
export async function pullTaskImage(ctx: SchedulerContext, ref: AttemptRef, job: JobRow, task: TaskSpec): Promise<void> {
  const image = task.image;
  if (!image || image.run) return;
  let registry: string;
  try {
    registry = parseImageReference(image.name).registry;
  } catch (e) {
    throw new EngineError(`The workflow's container image cannot be pulled: ${(e as Error).message}`);
  }
  const credentials = await linkedAccount(ctx, job.user_id, registry);
  if (!credentials && job.docker_login === 1) {
    throw new EngineError(
      `dockerLogin: you have no docker registry account at "${registry}" (the registry of the image ${image.name}); ` +
        `link one with "runyard user docker-login --registry ${registry} --username NAME".`,
    );
  }
  const pulled = await pullIntoLog(ctx.images, image.name, task.logFile, {
    credentials,
    onResolved: (digest) => recordDigest(ctx, ref, digest),
  });
  const { config } = pulled;
  if (config.userProblem) throw new EngineError(`The image ${image.name} cannot run: ${config.userProblem}.`);
  // The image's variables are its pusher's text: set by bwrap in the sandbox only, never seen by what runs before it as root.
  image.run = { digest: pulled.digest, rootfs: pulled.rootfs, uid: config.uid, gid: config.gid, env: imageEnv(config, task.env) };
  task.argv = [...config.entrypoint, ...task.argv];
  task.preamble = [...(task.preamble ?? []), ...imageNotes(ctx.config, image.name, pulled.digest, config)];
}

/**
 * Records the digest on the job before the cache is looked at: from then on the cache keeps the
 * image (an eviction sees that the job uses it), until the job ends.
 */
async function recordDigest(ctx: SchedulerContext, ref: AttemptRef, digest: string): Promise<void> {
  await ctx.db.updateTable('jobs').set({ image_digest: digest }).where('id', '=', ref.id).where('attempt', '=', ref.attempt).execute();
}

/**
 * What the sandbox sets in the task's environment, as `docker run -e` makes it: the image's
 * variables that the job does not set itself (the job's own, HOME, RUNYARD_* and the parameters,
 * stay in the task's environment), and the image's PATH (docker's default when it sets none): the
 * host's PATH names the host's folders.
 */
export function imageEnv(config: ImageConfig, own: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of config.env) {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq);
    if (eq > 0 && (name === 'PATH' || !(name in own))) env[name] = entry.slice(eq + 1);
  }
  return { ...env, PATH: env.PATH || DEFAULT_IMAGE_PATH };
}

/** What the job's log says of the image it runs in, and of what of its config does not apply here. */
function imageNotes(config: Config, name: string, digest: string, image: ImageConfig): string[] {
  const notes = [`Runyard: this job runs in the image ${name} (${digest}), read-only but for the job's own folders, /tmp and /var/tmp.`];
  if (image.entrypoint.length) notes.push(`Runyard: the image's entrypoint runs the command: ${JSON.stringify(image.entrypoint)}.`);
  if (image.workingDir)
    notes.push(
      `Runyard: the command runs in the job's work directory, not in the image's WorkingDir ${image.workingDir} (as docker run -w does).`,
    );
  const host = taskHostUser(config);
  if (host && image.user)
    notes.push(
      `Runyard: the task runs as uid ${host.uid} (RUNYARD_TASK_UID, this server runs as root), not as the image's user ${image.user}.`,
    );
  return notes;
}

/**
 * Pulls an image into the cache for a task (a job's, a session's), writing each line of the pull's
 * progress to the task's log as it comes (`Runyard: image: ...`; a pull can take minutes). A pull
 * that fails throws an EngineError with the pull's own message (which never holds the password).
 */
export async function pullIntoLog(
  images: ImageCache,
  name: string,
  logFile: string,
  options: Omit<PullOptions, 'onProgress'>,
): Promise<PulledImage> {
  // The log's lines in order, each written as it comes.
  let writing: Promise<void> = Promise.resolve();
  const say = (line: string) => {
    writing = writing.then(() => appendLogLines(logFile, [`Runyard: image: ${line}`])).catch(() => undefined);
  };
  try {
    return await images.pull(name, { ...options, onProgress: say });
  } catch (e) {
    if (e instanceof ImagePullError) throw new EngineError(`The image could not be pulled: ${e.message}`);
    throw e;
  } finally {
    await writing;
  }
}

/** A user's account at the registry (a job's or a session's owner), with its password unsealed; null when they linked none. */
export async function linkedAccount(
  ctx: Pick<SchedulerContext, 'db' | 'config'>,
  userId: string,
  registry: string,
): Promise<RegistryCredentials | null> {
  const rows = await ctx.db
    .selectFrom('docker_registries')
    .select(['registry', 'username', 'password_sealed'])
    .where('user_id', '=', userId)
    .execute();
  const row = rows.find((r) => r.registry === registry || (DOCKER_HUB.has(r.registry) && DOCKER_HUB.has(registry)));
  if (!row) return null;
  try {
    return { username: row.username, password: unseal(ctx.config.secretKeyFile, row.password_sealed) };
  } catch {
    throw new EngineError(
      `The docker registry account at "${row.registry}" cannot be read with this server's secret key (RUNYARD_SECRET_KEY_FILE); link it again.`,
    );
  }
}
