import type {
  InteractiveSession,
  SessionBackend,
  SessionConfiguration,
  SessionPlatform,
  SessionStatus,
  SessionStopReason,
  SessionVisibility,
} from '@runyard/contract';
import type { Kysely } from 'kysely';
import { sessionOptionNotes } from '../scheduler/session-options.js';
import { totalCostCents, totalRunningSeconds, type SessionRow } from '../scheduler/session-state.js';
import type { Database } from '../store/schema.js';
import type { ResolvedSessionItem } from './interactive-session-items.js';

/** `interactiveSessionType` by backend and platform (wire-api §2.11), as the public client names them. */
const SESSION_TYPES: Record<SessionBackend, Record<SessionPlatform, string>> = {
  regular: { aws: 'awsJupyterNotebook', azure: 'azureJupyterNotebook' },
  vscode: { aws: 'awsVSCode', azure: 'azureVSCode' },
  rstudio: { aws: 'awsRstudio', azure: 'azureRstudio' },
  spark: { aws: 'awsJupyterSparkNotebook', azure: 'azureJupyterSparkNotebook' },
};

export function sessionTypeOf(backend: SessionBackend, platform: SessionPlatform): string {
  return SESSION_TYPES[backend][platform];
}

const dollars = (cents: number) => Math.round(cents * 100) / 10_000;

/** The items as the client gave them (the document shows what was asked for). */
const givenOf = (json: string) => (JSON.parse(json) as ResolvedSessionItem[]).map((i) => i.given);

/** The configuration as it stands: the create body's with its defaults, and what resumes changed. */
function configurationOf(s: SessionRow): SessionConfiguration {
  return {
    name: s.name,
    backend: s.backend as SessionBackend,
    executionPlatform: s.execution_platform as SessionPlatform,
    instanceType: s.instance_type,
    isCostSaving: s.is_cost_saving === 1,
    storageSizeInGb: s.storage_size_gb,
    storageMode: s.storage_mode,
    visibility: s.visibility as SessionVisibility,
    execution: { computeCostLimit: Number(s.cost_limit), autoShutdownAtDate: s.auto_shutdown_at },
    ...(s.backend === 'rstudio' && { rVersion: s.r_version }),
    ...(s.cluster_json && { cluster: JSON.parse(s.cluster_json) as Record<string, unknown> }),
    ...(s.image && { image: s.image }),
  };
}

type Person = { id: string; name: string; surname: string; email: string };

function toDocument(s: SessionRow, user: Person | undefined, projectName: string, nowMs: number): InteractiveSession {
  const cost = dollars(totalCostCents(s, nowMs));
  return {
    _id: s.id,
    name: s.name,
    status: s.status as SessionStatus,
    interactiveSessionType: sessionTypeOf(s.backend as SessionBackend, s.execution_platform as SessionPlatform),
    backend: s.backend as SessionBackend,
    team: s.workspace_id,
    user: {
      id: s.user_id,
      _id: s.user_id,
      name: user?.name ?? '',
      surname: user?.surname ?? '',
      email: user?.email ?? '',
    },
    project: { _id: s.project_id, name: projectName },
    visibility: s.visibility as SessionVisibility,
    resources: {
      instanceType: s.instance_type,
      isCostSaving: s.is_cost_saving === 1,
      storageSizeInGb: s.storage_size_gb,
      vcpus: Number(s.cpus),
      memoryGiB: Number(s.memory_gib),
    },
    interactiveSessionConfiguration: configurationOf(s),
    execution: { computeCostLimit: Number(s.cost_limit), computeCostSpent: cost, autoShutdownAtDate: s.auto_shutdown_at },
    totalCostInUsd: cost,
    totalRunningTimeInSeconds: Math.floor(totalRunningSeconds(s, nowMs)),
    costPerHour: dollars(Number(s.price_per_hour_cents)),
    rVersion: s.r_version,
    dataItems: givenOf(s.data_items_json),
    fuseFileSystems: givenOf(s.fuse_file_systems_json),
    statusMessage: s.status_message,
    stopReason: s.stop_reason as SessionStopReason | null,
    archived: { status: s.archived === 1, archivalTimestamp: s.archived_at },
    createdAt: s.created_at,
    updatedAt: s.updated_at,
    startedAt: s.run_started_at,
    lastSavedAt: s.last_saved_at,
    runyardNotes: sessionOptionNotes(s),
    endedAt: s.ended_at,
  };
}

/** The documents of these sessions (owners and projects in two queries, whatever their number), costs up to now. */
export async function sessionDocuments(db: Kysely<Database>, rows: SessionRow[]): Promise<InteractiveSession[]> {
  if (!rows.length) return [];
  const userIds = [...new Set(rows.map((r) => r.user_id))];
  const projectIds = [...new Set(rows.map((r) => r.project_id))];
  const [users, projects] = await Promise.all([
    db.selectFrom('users').select(['id', 'name', 'surname', 'email']).where('id', 'in', userIds).execute(),
    db.selectFrom('projects').select(['id', 'name']).where('id', 'in', projectIds).execute(),
  ]);
  const userById = new Map(users.map((u) => [u.id, u]));
  const projectName = new Map(projects.map((p) => [p.id, p.name]));
  const now = Date.now();
  return rows.map((r) => toDocument(r, userById.get(r.user_id), projectName.get(r.project_id) ?? '', now));
}

export async function sessionDocument(db: Kysely<Database>, row: SessionRow): Promise<InteractiveSession> {
  return (await sessionDocuments(db, [row]))[0];
}
