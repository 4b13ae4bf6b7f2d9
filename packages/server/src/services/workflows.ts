import {
  isoNow,
  MAX_WORKFLOW_PAGE_SIZE,
  MODULE_GROUPS,
  newObjectId,
  type DockerWorkflowCreateBody,
  type Workflow,
  type WorkflowListQuery,
  type WorkflowListReply,
} from '@runyard/contract';
import { sql, type Insertable, type Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { containsPattern } from '../store/like.js';
import { preparedQuery } from '../store/prepared-query.js';
import type { Database, WorkflowTable } from '../store/schema.js';
import type { Context } from './context.js';

export const DEFAULT_WORKFLOW_COST_LIMIT_USD = 30;

function workflowQuery(db: Kysely<Database>, workspaceId: string) {
  return db
    .selectFrom('workflows')
    .innerJoin('users', 'users.id', 'workflows.user_id')
    .selectAll('workflows')
    .select(['users.name as owner_name', 'users.surname as owner_surname', 'users.email as owner_email'])
    .where('workflows.workspace_id', '=', workspaceId);
}

export type WorkflowRow = Awaited<ReturnType<ReturnType<typeof workflowQuery>['executeTakeFirstOrThrow']>>;

/** The wire's repository id: a number, except on Bitbucket Server where it is the repository name. */
function wireRepositoryId(r: WorkflowRow): number | string {
  return r.platform === 'bitbucketServer' ? (r.repository_name ?? '') : Number(r.repository_id);
}

export function workflowToWire(r: WorkflowRow): Workflow {
  return {
    _id: r.id,
    name: r.name,
    description: r.description,
    team: r.workspace_id,
    owner: { id: r.user_id, name: r.owner_name, surname: r.owner_surname, email: r.owner_email },
    workflowType: r.workflow_type,
    group: r.group_name,
    isModule: (MODULE_GROUPS as readonly string[]).includes(r.group_name),
    archived: { status: r.archived === 1, archivalTimestamp: r.archived_at },
    ...(r.repository_url && {
      repository: {
        platform: r.platform ?? 'github',
        repositoryId: wireRepositoryId(r),
        name: r.repository_name ?? '',
        owner: { login: r.repository_owner ?? '', id: Number(r.repository_owner_id) },
        isPrivate: r.is_private === 1,
        url: r.repository_url,
        commit: '',
        branch: r.default_branch ?? '',
      },
    }),
    mainFile: r.main_file,
    ...(r.imports_file && { importsFile: r.imports_file }),
    defaultContainer: null,
    ...(r.workflow_type === 'docker' && { containerName: r.container_name ?? '', defaultCommand: r.default_command ?? '' }),
    processes: [],
    parametersInfo: [],
    tags: [],
    overview: '',
    imageUrl: null,
    priceAmount: 0,
    priceUnit: 'PER_SAMPLE',
    docsLink: r.docs_link,
    isPublic: r.is_public === 1,
    executionConfiguration: { costLimitsInUsd: { value: Number(r.cost_limit_usd), editable: true } },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * `Pagination-Count` is the exact number of matches: the public client counts first, then asks
 * for exactly that many (`pageSize=<count>`, no page) on every workflow lookup.
 */
export async function listWorkflows(db: Kysely<Database>, ctx: Context, query: WorkflowListQuery): Promise<WorkflowListReply> {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? MAX_WORKFLOW_PAGE_SIZE;
  const search = query.search?.trim() ?? '';
  const archived = query['archived.status'];
  let list = workflowQuery(db, ctx.workspaceId);
  let count = db
    .selectFrom('workflows')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', ctx.workspaceId);
  if (search) {
    const like = sql<boolean>`lower(workflows.name) like ${containsPattern(search)} escape '\\'`;
    list = list.where(like);
    count = count.where(like);
  }
  if (archived !== undefined) {
    list = list.where('workflows.archived', '=', archived ? 1 : 0);
    count = count.where('archived', '=', archived ? 1 : 0);
  }
  const [{ n }] = await count.execute();
  const rows =
    pageSize === 0
      ? []
      : await list
          .orderBy('workflows.created_at', 'desc')
          .orderBy('workflows.id', 'desc')
          .limit(pageSize)
          .offset((page - 1) * pageSize)
          .execute();
  return {
    workflows: rows.map(workflowToWire),
    paginationMetadata: { 'Pagination-Count': Number(n), 'Pagination-Page': page, 'Pagination-Limit': pageSize },
  };
}

const workflowById = preparedQuery((db, p: { workspaceId: string; id: string }) =>
  workflowQuery(db, p.workspaceId).where('workflows.id', '=', p.id),
);

/** The workflow's row with its owner; another workspace's workflow is not found. */
export async function workflowRow(db: Kysely<Database>, workspaceId: string, id: string): Promise<WorkflowRow> {
  const row = await workflowById.executeTakeFirst(db, { workspaceId, id });
  if (!row) throw new AppError('WORKFLOW_NOT_FOUND', `Workflow ${id} not found in this workspace.`);
  return row;
}

export async function getWorkflow(db: Kysely<Database>, workspaceId: string, id: string): Promise<Workflow> {
  return workflowToWire(await workflowRow(db, workspaceId, id));
}

/** Inserts a workflow row with the defaults every kind shares. */
export async function insertWorkflow(
  db: Kysely<Database>,
  row: Omit<Insertable<WorkflowTable>, 'id' | 'created_at' | 'updated_at'>,
): Promise<string> {
  const now = isoNow();
  const id = newObjectId();
  await db
    .insertInto('workflows')
    .values({ ...row, id, created_at: now, updated_at: now })
    .execute();
  return id;
}

/** A container (docker) workflow that bash jobs run in; created by an administrator. */
export async function createDockerWorkflow(db: Kysely<Database>, user: { id: string }, body: DockerWorkflowCreateBody): Promise<Workflow> {
  const ws = await db.selectFrom('workspaces').select('id').where('id', '=', body.workspaceId).executeTakeFirst();
  if (!ws) throw new AppError('WORKSPACE_NOT_FOUND', `Workspace ${body.workspaceId} not found.`);
  const existing = await db
    .selectFrom('workflows')
    .select('id')
    .where('workspace_id', '=', body.workspaceId)
    .where('name', '=', body.name)
    .where('workflow_type', '=', 'docker')
    .where('archived', '=', 0)
    .executeTakeFirst();
  if (existing) throw new AppError('WORKFLOW_EXISTS', `A container workflow named ${quoted(body.name)} already exists in this workspace.`);
  const id = await insertWorkflow(db, {
    workspace_id: body.workspaceId,
    user_id: user.id,
    name: body.name,
    description: body.description ?? '',
    workflow_type: 'docker',
    group_name: body.group ?? 'user',
    main_file: null,
    imports_file: null,
    platform: null,
    repository_url: null,
    repository_name: null,
    repository_owner: null,
    repository_id: null,
    repository_owner_id: null,
    default_branch: null,
    is_private: 0,
    container_name: body.containerName,
    default_command: body.defaultCommand ?? '',
    docs_link: '',
    is_public: 0,
    cost_limit_usd: DEFAULT_WORKFLOW_COST_LIMIT_USD,
    archived: 0,
    archived_at: null,
  });
  return getWorkflow(db, body.workspaceId, id);
}

export async function setWorkflowArchived(db: Kysely<Database>, ctx: Context, id: string, archived: boolean): Promise<Workflow> {
  await getWorkflow(db, ctx.workspaceId, id);
  const now = isoNow();
  await db
    .updateTable('workflows')
    .set({ archived: archived ? 1 : 0, archived_at: archived ? now : null, updated_at: now })
    .where('id', '=', id)
    .where('workspace_id', '=', ctx.workspaceId)
    .execute();
  return getWorkflow(db, ctx.workspaceId, id);
}
