// The operations of the SDK that need nothing of node: built on any ApiTransport, the node one
// (RunyardClient, for the CLI) or fetch (FetchTransport, for the dashboard in a browser).
import type {
  BranchesReply,
  EngineAction,
  EngineServer,
  EngineToken,
  InstanceTypeListReply,
  InteractiveSession,
  JobCostsReply,
  JobQueue,
  Project,
  SessionCreateBody,
  SessionResumeBody,
  SessionMount,
  SessionUiLink,
  UserMe,
  Workflow,
} from '@runyard/contract';
import { AdminClient } from './admin.js';
import type { ApiTransport, RawResponse, RequestOptions } from './api-transport.js';
import * as auth from './auth.js';
import * as cromwell from './cromwell.js';
import * as sessions from './interactive-sessions.js';
import * as links from './session-links.js';
import { RunyardValueError } from './errors.js';
import * as projects from './projects.js';
import * as users from './users.js';
import * as workflows from './workflows.js';
import { abortJob } from './jobs-api/abort.js';
import { retrieveArrayFileColumns, type ArrayFileColumns } from './jobs-api/array-file.js';
import { followJob, type FollowJobOptions, type JobEvent } from './jobs-api/job-events.js';
import type { ArrayFileSeparator } from './jobs/job-body.js';
import { archiveJobs, checkJobsArchiveStatus, unarchiveJobs, type ArchiveStatusCheck } from './jobs-api/archive.js';
import { cloneOrResumeJob, type CloneOrResumeOptions } from './jobs-api/clone.js';
import { getJobCosts, type JobCostsOptions } from './jobs-api/costs.js';
import { getInstanceTypes } from './instance-types.js';
import { JobHandle } from './jobs-api/job-handle.js';
import { getJobList, type JobListOptions, type JobListResult } from './jobs-api/job-list.js';
import { getFieldFromJobsEndpoint, getJobRequestPayload, getJobStatus } from './jobs-api/job-read.js';
import { processJobList, reorderJobList } from './jobs-api/job-table.js';
import { fetchJobQueueId, getJobQueues, type FetchJobQueueIdOptions, type JobQueueListOptions } from './jobs-api/queues.js';
import { sendJob, type JobConfigReader, type SendJobOptions } from './jobs-api/send-job.js';
import type { JobDocument } from './jobs-api/types.js';
import { waitJobCompletion, type JobCompletion, type WaitOptions } from './jobs-api/wait.js';
import type { Table } from './table.js';
import { FileExplorer } from './datasets/file-explorer.js';
import { deleteJobResults, type JobDataDeletion, type JobDataMode } from './job-data/delete-job-data.js';
import {
  getResultsDeletionStatus,
  getWorkdirDeletionStatus,
  type ResultsDeletionStatus,
  type WorkdirDeletionStatus,
} from './job-data/deletion-status.js';
import { getFolderDeletionStatus, getFolderItemsDeletionStatus } from './job-data/folder-status.js';
import { getJobLogs, getJobLogsFolder } from './job-data/job-logs.js';
import { getJobResults, getJobResultsFolder } from './job-data/job-results.js';
import { getJobWorkdir, type WorkdirOptions } from './job-data/job-workdir.js';
import { getParentJob, getRelatedJobs, type ParentJob, type RelatedJob } from './job-data/related-jobs.js';
import { getStorageContents } from './job-data/storage-contents.js';
import type { CloudMeta, CloudName, FolderItemsStatus, FolderRecord, StorageContent } from './job-data/types.js';
import { storageObjectPath, type StoredObject } from './storage/list-objects.js';

export interface ApiOptions {
  /** Token for the workflow-engine routes (`Authorization: Bearer`); without one they get the transport's own credentials. */
  engineToken?: string | null;
  /** Reads the job-config file sendJob is given (`jobConfig`, a path); without one such a job is refused. */
  jobConfigReader?: JobConfigReader;
}

export type FetchIdByNameOptions =
  { resource: 'projects'; workspaceId: string; name: string } | ({ resource: 'workflows' } & workflows.WorkflowIdLookup);

/** The Runyard SDK's operations over any transport: one method per operation of the seed contract. */
export class RunyardApi {
  readonly transport: ApiTransport;
  readonly admin: AdminClient;
  /** The engine token as given: null when none was (the Cromwell routes then get the transport's credentials). */
  protected readonly givenEngineToken: string | null;
  /** Reads a job-config file for sendJob; the node client has one. */
  protected readonly jobConfigReader: JobConfigReader | undefined;

  constructor(transport: ApiTransport, options: ApiOptions = {}) {
    this.transport = transport;
    this.admin = new AdminClient(transport);
    this.givenEngineToken = options.engineToken || null;
    this.jobConfigReader = options.jobConfigReader;
  }

  /** The dashboard's sign-in: exchanges an API key for a session cookie; the session (user, CSRF token for writes, end). */
  login(apikey: string): Promise<auth.AuthSession> {
    return auth.login(this.transport, apikey);
  }

  /** The session of the cookie the page has, or null when it has none (signed out, expired). */
  currentSession(): Promise<auth.AuthSession | null> {
    return auth.currentSession(this.transport);
  }

  /** Ends the dashboard's session and clears its cookie. */
  logout(): Promise<void> {
    return auth.logout(this.transport);
  }

  /**
   * The path and query (below the transport's base path) that downloads one object of the
   * workspace's storage: `GET /api/runyard/storage/object`, for a page's `<a href download>`.
   */
  storageObjectPath(workspaceId: string, object: Pick<StoredObject, 'bucket' | 'key'>): string {
    if (!workspaceId) throw new RunyardValueError('Invalid workspace_id: must be a non-empty string');
    return storageObjectPath(this.transport.basePath, workspaceId, object);
  }

  /** Any route: `client.request('GET', '/api/v2/projects', {query: {teamId}})`. */
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T> {
    return this.transport.request<T>(method, path, options);
  }

  /** Any route, without turning a status >= 400 into an error. */
  rawRequest(method: string, path: string, options?: RequestOptions): Promise<RawResponse> {
    return this.transport.raw(method, path, options);
  }

  getUserInfo(): Promise<UserMe> {
    return users.getUserInfo(this.transport);
  }

  /** Links (or replaces) the caller's docker registry account: jobs with dockerLogin pull with it. The password is never returned. */
  linkDockerRegistry(account: { registry: string; username: string; password: string }): Promise<users.DockerRegistryAccount> {
    return users.linkDockerRegistry(this.transport, account);
  }

  unlinkDockerRegistry(registry: string): Promise<void> {
    return users.unlinkDockerRegistry(this.transport, registry);
  }

  resolveUserId(filterOwner: string, workspaceId: string): Promise<string> {
    return users.resolveUserId(this.transport, filterOwner, workspaceId);
  }

  createProject(workspaceId: string, projectName: string): Promise<string> {
    return projects.createProject(this.transport, workspaceId, projectName);
  }

  getProjectIdFromName(workspaceId: string, projectName: string): Promise<Project> {
    return projects.getProjectIdFromName(this.transport, workspaceId, projectName);
  }

  getProjectList(workspaceId: string, options?: projects.ProjectListOptions): Promise<Project[]> {
    return projects.getProjectList(this.transport, workspaceId, options);
  }

  /** fetch id by name: the id of the named resource in the workspace. */
  async fetchIdByName(options: FetchIdByNameOptions): Promise<string> {
    if (options.resource === 'projects') return (await this.getProjectIdFromName(options.workspaceId, options.name))._id;
    if (options.resource === 'workflows') return workflows.fetchWorkflowId(this.transport, options);
    throw new RunyardValueError(`Unknown resource "${String((options as { resource: unknown }).resource)}".`);
  }

  getWorkflowList(workspaceId: string, options?: workflows.WorkflowListOptions): Promise<Workflow[]> {
    return workflows.getWorkflowList(this.transport, workspaceId, options);
  }

  getWorkflowContent(workspaceId: string, workflowName: string, options?: { last?: boolean; maxPageSize?: number }): Promise<Workflow> {
    return workflows.getWorkflowContent(this.transport, workspaceId, workflowName, options);
  }

  workflowContentQuery(workspaceId: string, workflowName: string, query = 'workflowType', last = false): Promise<unknown> {
    return workflows.workflowContentQuery(this.transport, workspaceId, workflowName, query, last);
  }

  getWorkflowMaxPagination(workspaceId: string, workflowName: string): Promise<number> {
    return workflows.getWorkflowMaxPagination(this.transport, workspaceId, workflowName);
  }

  detectWorkflow(workflowName: string, workspaceId: string, last = false): Promise<string> {
    return workflows.detectWorkflow(this.transport, workflowName, workspaceId, last);
  }

  isModule(workflowName: string, workspaceId: string, last = false): Promise<boolean> {
    return workflows.isModule(this.transport, workflowName, workspaceId, last);
  }

  /** The CLI's import (getPublicRepo, getWorkflowConfig, POST /api/v2/workflows): the new workflow's id. */
  importWorkflow(workspaceId: string, options: workflows.ImportOptions): Promise<string> {
    return workflows.importWorkflow(this.transport, workspaceId, options);
  }

  /** workflow_import, the legacy library call (POST /api/v1/workflows). */
  workflowImport(workspaceId: string, options: workflows.LegacyImportOptions): Promise<string> {
    return workflows.workflowImport(this.transport, workspaceId, options);
  }

  getBranches(workspaceId: string, options: workflows.BranchOptions): Promise<BranchesReply> {
    return workflows.getBranches(this.transport, workspaceId, options);
  }

  archiveWorkflow(workspaceId: string, workflowId: string): Promise<Workflow> {
    return workflows.archiveWorkflow(this.transport, workspaceId, workflowId, true);
  }

  unarchiveWorkflow(workspaceId: string, workflowId: string): Promise<Workflow> {
    return workflows.archiveWorkflow(this.transport, workspaceId, workflowId, false);
  }

  /**
   * get_cromwell_status: the workspace's WDL engine server, `{_id, status, driver, ...}`. Sent with
   * `Authorization: Bearer <engine token>` when the client has one, else with the transport's own
   * credentials (the apikey, or the session cookie).
   */
  getCromwellStatus(workspaceId: string): Promise<EngineServer> {
    return cromwell.getCromwellStatus(this.transport, workspaceId, this.givenEngineToken);
  }

  /** cromwell_switch: `restart` starts the engine server (it answers once it runs, 409 with the reason when it cannot), `stop` stops it. */
  cromwellSwitch(workspaceId: string, action: EngineAction): Promise<EngineServer> {
    return cromwell.cromwellSwitch(this.transport, workspaceId, action, this.givenEngineToken);
  }

  /** Polls the engine server until it runs (or `waitTime` seconds pass, or it is stopped): the last status read. */
  waitForCromwell(workspaceId: string, options?: cromwell.WaitForEngineOptions): Promise<EngineServer> {
    return cromwell.waitForCromwell(this.transport, workspaceId, this.givenEngineToken, options);
  }

  /** The workspace's engine token (needs the admin role in the workspace). */
  showEngineToken(workspaceId: string): Promise<EngineToken> {
    return cromwell.showEngineToken(this.transport, workspaceId);
  }

  /** Replaces the workspace's engine token; the old one stops working at once (needs the admin role in the workspace). */
  rotateEngineToken(workspaceId: string): Promise<EngineToken> {
    return cromwell.rotateEngineToken(this.transport, workspaceId);
  }

  /** send_job: resolves names, builds the body and submits the job; the new job's id. */
  sendJob(options: SendJobOptions): Promise<string> {
    return sendJob(this.transport, options, this.jobConfigReader);
  }

  /**
   * retrieve array-file columns: the id and header columns of the array file at a File Explorer path
   * (`Data/dir/file.csv`) of a project. `separator`: `,` `;` `|`, a space or `tab`.
   */
  async retrieveArrayFileColumns(
    workspaceId: string,
    projectName: string,
    arrayFile: string,
    separator: ArrayFileSeparator = ',',
  ): Promise<ArrayFileColumns> {
    return retrieveArrayFileColumns(this.transport, await this.datasets(workspaceId, projectName), workspaceId, arrayFile, separator);
  }

  /**
   * Follows a job live: an async iterator over its log lines (from `offset`), its status changes
   * and its end (the last event). Reconnects from the last offset when the stream drops.
   */
  followJob(jobId: string, workspaceId: string, options?: FollowJobOptions): AsyncGenerator<JobEvent> {
    return followJob(this.transport, jobId, workspaceId, options);
  }

  /** get_job_status: the job document (`teamId=None` without a workspace). */
  getJobStatus(jobId: string, workspaceId?: string | null): Promise<JobDocument> {
    return getJobStatus(this.transport, jobId, workspaceId);
  }

  getJobRequestPayload(jobId: string, workspaceId: string): Promise<Record<string, unknown>> {
    return getJobRequestPayload(this.transport, jobId, workspaceId);
  }

  getFieldFromJobsEndpoint(jobId: string, field: string, workspaceId: string): Promise<unknown> {
    return getFieldFromJobsEndpoint(this.transport, jobId, field, workspaceId);
  }

  abortJob(jobId: string, workspaceId: string, force = false): Promise<unknown> {
    return abortJob(this.transport, jobId, workspaceId, force);
  }

  archiveJobs(jobIds: string[], workspaceId: string): Promise<unknown> {
    return archiveJobs(this.transport, jobIds, workspaceId);
  }

  unarchiveJobs(jobIds: string[], workspaceId: string): Promise<unknown> {
    return unarchiveJobs(this.transport, jobIds, workspaceId);
  }

  /** Which ids need archiving (target true) or unarchiving (false), which are already so, which are invalid. */
  checkJobsArchiveStatus(
    jobIds: string[],
    workspaceId: string,
    targetArchivedState: boolean,
    verbose = false,
    log?: (message: string) => void,
  ): Promise<ArchiveStatusCheck> {
    return checkJobsArchiveStatus(this.transport, jobIds, workspaceId, targetArchivedState, verbose, log);
  }

  /** Polls the job until it finishes or `waitTime` seconds pass: `{name, id, status}`. */
  waitJobCompletion(jobId: string, workspaceId: string, options?: WaitOptions): Promise<JobCompletion> {
    return waitJobCompletion(this.transport, jobId, workspaceId, options);
  }

  getJobList(workspaceId: string, options?: JobListOptions): Promise<JobListResult> {
    return getJobList(this.transport, workspaceId, options);
  }

  getJobQueues(workspaceId: string, options?: JobQueueListOptions): Promise<JobQueue[]> {
    return getJobQueues(this.transport, workspaceId, options);
  }

  /** get_job_costs: what a job cost, its master instance and workers (paged), in dollars. */
  getJobCosts(jobId: string, workspaceId: string, options?: JobCostsOptions): Promise<JobCostsReply> {
    return getJobCosts(this.transport, jobId, workspaceId, options);
  }

  /** The instance types of the server's catalogue, with their size and hourly price. */
  getInstanceTypes(workspaceId: string): Promise<InstanceTypeListReply> {
    return getInstanceTypes(this.transport, workspaceId);
  }

  /** create_interactive_session: the full configuration and data items (SessionCreateBody); the new session, scheduled, with its `_id`. */
  createInteractiveSession(teamId: string, payload: SessionCreateBody): Promise<InteractiveSession> {
    return sessions.createInteractiveSession(this.transport, teamId, payload);
  }

  /** get_interactive_session_list: one page of sessions; seed status names (running, stopped, provisioning, scheduled) are mapped to the wire's. */
  getInteractiveSessionList(teamId: string, options?: sessions.SessionListOptions): Promise<sessions.SessionListResult> {
    return sessions.getInteractiveSessionList(this.transport, teamId, options);
  }

  /** A session's document (status, configuration, costs). */
  getInteractiveSession(sessionId: string, teamId: string): Promise<InteractiveSession> {
    return sessions.getInteractiveSession(this.transport, sessionId, teamId);
  }

  /** resume_interactive_session: a paused session scheduled again, with the payload's changes; the updated session. */
  resumeInteractiveSession(sessionId: string, teamId: string, payload?: SessionResumeBody): Promise<InteractiveSession> {
    return sessions.resumeInteractiveSession(this.transport, sessionId, teamId, payload);
  }

  /** abort_interactive_session (pause): saves the home first unless `uploadOnClose` is false; `forceAbort` stops at once. Answers 204. */
  abortInteractiveSession(sessionId: string, teamId: string, uploadOnClose = true, forceAbort = false): Promise<number> {
    return sessions.abortInteractiveSession(this.transport, sessionId, teamId, uploadOnClose, forceAbort);
  }

  /**
   * A link (with a one-minute launch token, taken once) that opens a ready session's web UI: an absolute URL on the
   * sessions' own origin when the server has one (RUNYARD_SESSIONS_URL, or its loopback default), else a path on the platform.
   */
  getInteractiveSessionUiLink(sessionId: string, teamId: string): Promise<SessionUiLink> {
    return sessions.getInteractiveSessionUiLink(this.transport, sessionId, teamId);
  }

  /** mount_fuse_filesystem_v2: `{dataItems}` (folders and files) linked into the session; 204 once recorded (poll the mounts). */
  mountFuseFilesystemV2(sessionId: string, teamId: string, payload: links.MountPayload): Promise<number> {
    return links.mountFuseFilesystemV2(this.transport, sessionId, teamId, payload);
  }

  /** get_fuse_filesystems_status: every mount of the session (all pages), each with mountName, mountPoint, status and errorMessage. */
  getFuseFilesystemsStatus(sessionId: string, teamId: string): Promise<SessionMount[]> {
    return links.getFuseFilesystemsStatus(this.transport, sessionId, teamId);
  }

  /** wait_for_mount_completion: the mount once `mounted` or `failed`; a RunyardValueError when not found or out of time (timeout 360 s, checks every 2 s). */
  waitForMountCompletion(sessionId: string, teamId: string, mountName: string, options?: links.WaitForMountOptions): Promise<SessionMount> {
    return links.waitForMountCompletion(this.transport, sessionId, teamId, mountName, options);
  }

  /** link_folder: a storage URL or File Explorer path (files too) linked into the session, v2 first, v1 when v2 is unavailable; true once mounted. */
  linkFolder(folder: string, sessionId: string, teamId: string, options?: links.LinkOptions): Promise<boolean> {
    return links.linkFolder(this.transport, folder, sessionId, teamId, options);
  }

  /** link_folders_batch: several in one v2 request (one v1 request each when v2 is unavailable); true when every one is mounted. */
  linkFoldersBatch(folders: readonly string[], sessionId: string, teamId: string, options?: links.LinkOptions): Promise<boolean> {
    return links.linkFoldersBatch(this.transport, folders, sessionId, teamId, options);
  }

  /** link_job_results: the job's results directory (as getJobResults finds it) linked into the session. */
  linkJobResults(jobId: string, workspaceId: string, sessionId: string, options?: links.JobLinkOptions): Promise<links.JobLinkResult> {
    return links.linkJobFolder(this.transport, 'results', jobId, workspaceId, sessionId, options);
  }

  /** link_job_workdir: the job's working directory (as getJobWorkdir finds it) linked into the session. */
  linkJobWorkdir(jobId: string, workspaceId: string, sessionId: string, options?: links.JobLinkOptions): Promise<links.JobLinkResult> {
    return links.linkJobFolder(this.transport, 'workdir', jobId, workspaceId, sessionId, options);
  }

  /** link_job_logs: the folder of the job's log files linked into the session. */
  linkJobLogs(jobId: string, workspaceId: string, sessionId: string, options?: links.JobLinkOptions): Promise<links.JobLinkResult> {
    return links.linkJobFolder(this.transport, 'logs', jobId, workspaceId, sessionId, options);
  }

  fetchJobQueueId(workspaceId: string, options: FetchJobQueueIdOptions): Promise<string | null> {
    return fetchJobQueueId(this.transport, workspaceId, options);
  }

  /** clone_or_resume_job: the new job's id. */
  cloneOrResumeJob(options: CloneOrResumeOptions): Promise<string> {
    return cloneOrResumeJob(this.transport, options);
  }

  processJobList(jobs: JobDocument[], allFields = false): Table {
    return processJobList(jobs, allFields);
  }

  reorderJobList(table: Table): Table {
    return reorderJobList(table);
  }

  /** One job of a workspace: `status()`, `wait()`, `abort()`, `payload()`. */
  job(jobId: string, workspaceId: string): JobHandle {
    return new JobHandle(this.transport, jobId, workspaceId);
  }

  /** get_job_logs: each log file of the job by display name ("Nextflow standard output", "Nextflow log", "Trace file", …) with its s3:// or az:// URL. */
  getJobLogs(jobId: string, workspaceId: string): Promise<Record<string, string>> {
    return getJobLogs(this.transport, jobId, workspaceId);
  }

  /** get_job_results: the URL of a completed job's results directory. */
  getJobResults(jobId: string, workspaceId: string): Promise<string> {
    return getJobResults(this.transport, jobId, workspaceId);
  }

  /** get_job_workdir: the URL of the job's working directory (with the public client's fallbacks). */
  getJobWorkdir(jobId: string, workspaceId: string, options?: WorkdirOptions): Promise<string> {
    return getJobWorkdir(this.transport, jobId, workspaceId, options);
  }

  /** get_storage_contents: one level of a bucket (aws) or an Azure container (cloudMeta from `GET /api/v1/cloud/azure`). */
  getStorageContents(
    cloudName: CloudName,
    cloudMeta: CloudMeta | null,
    container: string,
    path: string,
    workspaceId: string,
  ): Promise<StorageContent[]> {
    return getStorageContents(this.transport, cloudName, cloudMeta, container, path, workspaceId);
  }

  /** delete_job_results: schedules the deletion of the job's results (`analysisResults`) or work directory (`workDirectory`). */
  deleteJobResults(jobId: string, mode: JobDataMode, workspaceId: string): Promise<JobDataDeletion> {
    return deleteJobResults(this.transport, jobId, mode, workspaceId);
  }

  getResultsDeletionStatus(jobId: string, workspaceId: string): Promise<ResultsDeletionStatus> {
    return getResultsDeletionStatus(this.transport, jobId, workspaceId);
  }

  getWorkdirDeletionStatus(jobId: string, workspaceId: string): Promise<WorkdirDeletionStatus> {
    return getWorkdirDeletionStatus(this.transport, jobId, workspaceId);
  }

  /** get_folder_deletion_status: the folder as a one-element array with its status. */
  getFolderDeletionStatus(folderId: string, workspaceId: string): Promise<FolderRecord[]> {
    return getFolderDeletionStatus(this.transport, folderId, workspaceId);
  }

  /** get_folder_items_deletion_status: the folders and files of a folder with their status. */
  getFolderItemsDeletionStatus(folderId: string, workspaceId: string): Promise<FolderItemsStatus> {
    return getFolderItemsDeletionStatus(this.transport, folderId, workspaceId);
  }

  /** get_parent_job: the id of the job that made the folder, or null. */
  getParentJob(workspaceId: string, folderId: string): Promise<ParentJob | null> {
    return getParentJob(this.transport, workspaceId, folderId);
  }

  /** The jobs sharing a working directory, across all pages of `limit`: job id → summary. */
  getRelatedJobs(workspaceId: string, workdirFolderId: string, limit = 100): Promise<Record<string, RelatedJob>> {
    return getRelatedJobs(this.transport, workspaceId, workdirFolderId, limit);
  }

  /** The whole results folder of a completed job as a storage URL (for `job results --download`), checked as getJobResults does. */
  getJobResultsFolder(jobId: string, workspaceId: string): Promise<string> {
    return getJobResultsFolder(this.transport, jobId, workspaceId);
  }

  /** The folder of a job's logs as a storage URL (for `job logs --download`). */
  getJobLogsFolder(jobId: string, workspaceId: string): Promise<string> {
    return getJobLogsFolder(this.transport, jobId, workspaceId);
  }

  /** The File Explorer of a project (found by name with the projects search unless its id is given). */
  datasets(workspaceId: string, projectName: string, options: { projectId?: string } = {}): Promise<FileExplorer> {
    return FileExplorer.open(this.transport, workspaceId, projectName, options);
  }

  /** Frees pooled connections, ends requests in flight (as the transport does). */
  close(): void {
    this.transport.close();
  }
}
