import { SESSION_STORAGE_DEFAULT_GB, isoNow, newObjectId, type InteractiveSession, type SessionCreateBody } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { parseImageReference } from '../images/reference.js';
import { quoted } from '../errors/quoted.js';
import { DEFAULT_INSTANCE_TYPE } from '../instance-types/catalogue.js';
import { defaultBucketOf } from '../scheduler/job-paths.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { checkCostLimit, checkShutdownDate, sessionCommand, sessionSizing } from './interactive-session-config.js';
import { sessionDocument } from './interactive-session-document.js';
import { resolveSessionItems } from './interactive-session-items.js';
import { NO_RUN } from '../scheduler/session-state.js';

/** Where a session's home is saved between runs, in its workspace's bucket. */
export function sessionHome(workspaceId: string, id: string): { bucket: string; prefix: string } {
  return { bucket: defaultBucketOf(workspaceId), prefix: `${workspaceId}/interactive-sessions/${id}/home` };
}

/**
 * The image a session names (Runyard's interactiveSessionConfiguration.image), checked as the pull
 * will read it, or null: none named. Jupyter only, and only where tasks run in bubblewrap (which
 * makes the image the task's root); the server's own Jupyter is then not needed.
 */
function sessionImage(config: Config, backend: string, given: string | null | undefined): string | null {
  if (given === undefined || given === null) return null;
  const where = 'interactiveSessionConfiguration.image';
  try {
    parseImageReference(given);
  } catch (e) {
    throw new AppError('VALIDATION_FAILED', `${where}: ${(e as Error).message}`);
  }
  if (backend !== 'regular')
    throw new AppError('VALIDATION_FAILED', `${where} is offered for Jupyter sessions (backend regular) only, not ${backend}.`);
  if (config.sandbox !== 'bwrap')
    throw new AppError(
      'VALIDATION_FAILED',
      `${where}: this server runs no session in an image: sessions run in an image in the bubblewrap sandbox only, and RUNYARD_SANDBOX is ${config.sandbox}.`,
    );
  return given.trim();
}

/** Spark's cluster: its master and core instance types must be ones the catalogue has. */
function checkCluster(config: Config, cluster: Record<string, unknown>): void {
  const instances = (cluster.instances ?? {}) as Record<string, { type?: unknown } | undefined>;
  for (const role of ['master', 'core'] as const) {
    const type = instances[role]?.type;
    if (type === undefined || type === null) continue;
    if (typeof type !== 'string') throw new AppError('VALIDATION_FAILED', `cluster.instances.${role}.type must be an instance type name.`);
    sessionSizing(config, type);
  }
}

/**
 * `POST /api/v1/interactive-sessions` (wire-api §2.11 "Create"): every part of the configuration
 * is checked before anything is written (a refusal changes nothing), then the session is stored
 * `scheduled` for the runner to start, and its document returned.
 */
export async function createSession(
  db: Kysely<Database>,
  config: Config,
  ctx: Context,
  body: SessionCreateBody,
): Promise<InteractiveSession> {
  const conf = body.interactiveSessionConfiguration;
  const platform = conf.executionPlatform ?? 'aws';
  if (conf.backend === 'spark' && platform !== 'aws') {
    throw new AppError('VALIDATION_FAILED', 'interactiveSessionConfiguration.backend spark is only offered with executionPlatform aws.');
  }
  if (conf.backend === 'rstudio' && !conf.rVersion) {
    throw new AppError('VALIDATION_FAILED', 'interactiveSessionConfiguration.rVersion is required for the rstudio backend (e.g. 4.4.2).');
  }
  const image = sessionImage(config, conf.backend, conf.image);
  if (image === null) sessionCommand(config, conf.backend);
  const sizing = sessionSizing(config, conf.instanceType ?? DEFAULT_INSTANCE_TYPE);
  if (conf.backend === 'spark' && conf.cluster) checkCluster(config, conf.cluster);
  const now = isoNow();
  const costLimit = checkCostLimit(conf.execution?.computeCostLimit ?? -1, 'interactiveSessionConfiguration.execution.computeCostLimit');
  const shutdownAt = checkShutdownDate(
    conf.execution?.autoShutdownAtDate ?? null,
    'interactiveSessionConfiguration.execution.autoShutdownAtDate',
    Date.parse(now),
  );
  const project = await db
    .selectFrom('projects')
    .select('id')
    .where('id', '=', body.projectId)
    .where('workspace_id', '=', ctx.workspaceId)
    .executeTakeFirst();
  if (!project) throw new AppError('PROJECT_NOT_FOUND', `Project ${quoted(body.projectId)} not found in this workspace.`);
  const items = await resolveSessionItems(db, ctx.workspaceId, { files: [], folders: [] }, body);
  const id = newObjectId();
  const home = sessionHome(ctx.workspaceId, id);
  // Inserted and read back in one transaction: the reply is the session as created, `scheduled`, even when a
  // scheduler's pass starts it (initializing) before a read after the commit would come.
  const row = await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('interactive_sessions')
      .values({
        id,
        workspace_id: ctx.workspaceId,
        project_id: project.id,
        user_id: ctx.user.id,
        name: conf.name,
        backend: conf.backend,
        execution_platform: platform,
        visibility: conf.visibility ?? 'private',
        status: 'scheduled',
        status_message: null,
        stop_reason: null,
        instance_type: sizing.instanceType,
        cpus: sizing.cpus,
        memory_gib: sizing.memoryGiB,
        price_per_hour_cents: sizing.pricePerHourCents,
        is_cost_saving: conf.isCostSaving ? 1 : 0,
        storage_size_gb: conf.storageSizeInGb ?? SESSION_STORAGE_DEFAULT_GB,
        storage_mode: conf.storageMode ?? 'regular',
        cost_limit: costLimit,
        auto_shutdown_at: shutdownAt,
        r_version: conf.backend === 'rstudio' ? (conf.rVersion ?? null) : null,
        cluster_json: conf.backend === 'spark' && conf.cluster ? JSON.stringify(conf.cluster) : null,
        data_items_json: JSON.stringify(items.files),
        fuse_file_systems_json: JSON.stringify(items.folders),
        request_json: JSON.stringify(body),
        image,
        home_bucket: home.bucket,
        home_prefix: home.prefix,
        ...NO_RUN,
        last_saved_at: null,
        archived_at: null,
        created_at: now,
        updated_at: now,
        ended_at: null,
      })
      .execute();
    return trx.selectFrom('interactive_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  });
  return sessionDocument(db, row);
}
