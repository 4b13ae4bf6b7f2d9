import type { JobDocument } from '@runyard/client/core';

/** What the pages show of a job document (the wire's document carries many more keys, loosely typed). */
export interface JobView {
  id: string;
  name: string;
  status: string;
  statusMessage: string | null;
  workspaceId: string;
  jobType: string;
  projectName: string | null;
  workflowName: string | null;
  workflowType: string | null;
  ownerId: string | null;
  ownerName: string | null;
  createdAt: string | null;
  startTime: string | null;
  endTime: string | null;
  updatedAt: string | null;
  /** Cents. */
  costCents: number | null;
  /** Dollars; -1 is no limit. */
  costLimit: number | null;
  queue: { id: string; label: string } | null;
  instanceType: string | null;
  cpu: number | null;
  ramGiB: number | null;
  revision: Record<string, unknown>;
  command: string | null;
  parameters: Record<string, unknown>[];
  archived: boolean;
  resumable: boolean;
  /** The folder a resume reuses (null: the job cannot be resumed). */
  resumeWorkDir: string | null;
  exitCode: number | null;
  results: FolderRef | null;
  workDirectory: FolderRef | null;
}

export interface FolderRef {
  folderId: string;
  deletedBy: { name?: string; surname?: string; email?: string } | null;
  deletionDate: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (v === null || v === undefined || v === '' || !Number.isFinite(Number(v)) ? null : Number(v));
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function folderRef(v: unknown): FolderRef | null {
  const o = obj(v);
  const folderId = str(o.folderId);
  if (!folderId) return null;
  const by = obj(o.deletedBy);
  return { folderId, deletedBy: Object.keys(by).length ? (by as FolderRef['deletedBy']) : null, deletionDate: str(o.deletionDate) };
}

export function jobView(doc: JobDocument): JobView {
  const user = obj(doc.user);
  const workflow = obj(doc.workflow);
  const queue = obj(obj(doc.batch).jobQueue);
  const resources = obj(doc.resourceRequirements);
  const requested = obj(obj(doc.masterInstance).requestedInstance);
  const owner = [str(user.name), str(user.surname)].filter(Boolean).join(' ');
  return {
    id: doc._id,
    name: doc.name,
    status: doc.status,
    statusMessage: str(doc.statusMessage),
    workspaceId: str(doc.team) ?? '',
    jobType: str(doc.jobType) ?? '',
    projectName: str(obj(doc.project).name),
    workflowName: str(workflow.name),
    workflowType: str(workflow.workflowType),
    ownerId: str(user.id) ?? str(user._id),
    ownerName: owner || str(user.email),
    createdAt: str(doc.createdAt),
    startTime: str(doc.startTime),
    endTime: str(doc.endTime),
    updatedAt: str(doc.updatedAt),
    costCents: num(doc.computeCostSpent),
    costLimit: num(doc.computeCostLimit ?? obj(doc.execution).computeCostLimit),
    queue: str(queue.id) ? { id: String(queue.id), label: str(queue.label) ?? str(queue.name) ?? String(queue.id) } : null,
    instanceType: str(doc.instanceType) ?? str(requested.type),
    cpu: num(resources.cpu),
    ramGiB: num(resources.ram),
    revision: obj(doc.revision),
    command: str(doc.command),
    parameters: Array.isArray(doc.parameters) ? (doc.parameters as Record<string, unknown>[]) : [],
    archived: obj(doc.archived).status === true,
    resumable: doc.resumable === true,
    resumeWorkDir: str(doc.resumeWorkDir),
    exitCode: num(doc.exitCode),
    results: folderRef(doc.analysisResults),
    workDirectory: folderRef(doc.workDirectory),
  };
}
