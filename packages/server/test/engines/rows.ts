import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { JobRow, WorkflowRow } from '../../src/engines/engine.js';
import type { TaskSpec } from '../../src/executors/executor.js';
import { jobPaths, type JobPaths } from '../../src/scheduler/job-paths.js';

/** Job and workflow rows as the scheduler reads them, without a database. */
export function jobRow(values: Partial<JobRow> & { params?: { name: string; prefix?: string; textValue: unknown }[] } = {}): JobRow {
  const { params = [], ...rest } = values;
  return {
    id: '65f0c0ffee0000000000abcd',
    workspace_id: '65f0c0ffee0000000000beef',
    project_id: 'p',
    workflow_id: 'w',
    user_id: 'u',
    queue_id: 'q',
    name: 'job',
    status: 'initializing',
    job_type: 'dockerAWS',
    workflow_type: 'docker',
    execution_platform: 'aws',
    request_json: '{}',
    parameters_json: JSON.stringify(params.map((p) => ({ prefix: '--', ...p, parameterKind: 'textValue' }))),
    revision_json: '{}',
    profile: null,
    nextflow_version: null,
    command: null,
    resource_cpu: 1,
    resource_ram: 1,
    instance_type: null,
    cpus: 1,
    memory_gib: 1,
    resources_note: null,
    image_digest: null,
    storage_size_gb: 10,
    cost_limit: -1,
    compute_cost_cents: 0,
    resumable: 0,
    save_process_logs: 1,
    batch_enabled: 0,
    archived: 0,
    archived_at: null,
    attempt: 1,
    lease_owner: 's',
    lease_expires_at: null,
    external_id: null,
    exit_code: null,
    status_message: null,
    abort_force: 0,
    resume_work_dir: null,
    created_at: '2024-01-01T00:00:00.000Z',
    updated_at: '2024-01-01T00:00:00.000Z',
    start_time: null,
    end_time: null,
    // Columns of a later migration: null in every row read from the database.
    results_folder_id: null,
    work_folder_id: null,
    work_bucket: null,
    work_prefix: null,
    hpc_id: null,
    array_size: null,
    array_limit: null,
    array_tasks_json: null,
    docker_login: 0,
    ...rest,
  };
}

export function workflowRow(values: Partial<WorkflowRow> = {}): WorkflowRow {
  return {
    id: 'w',
    workspace_id: '65f0c0ffee0000000000beef',
    user_id: 'u',
    name: 'wf',
    description: '',
    workflow_type: 'docker',
    group_name: 'user',
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
    container_name: 'library/ubuntu',
    default_command: null,
    docs_link: '',
    is_public: 0,
    cost_limit_usd: 30,
    archived: 0,
    archived_at: null,
    created_at: '2024-01-01T00:00:00.000Z',
    updated_at: '2024-01-01T00:00:00.000Z',
    ...values,
  };
}

export function pathsFor(dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-engine-'))): JobPaths {
  return jobPaths(dataDir, '65f0c0ffee0000000000beef', '65f0c0ffee0000000000abcd');
}

/** What the attempt runner lets a task write and read besides its cwd (see scheduler/attempt-runner.ts), for tests that launch a prepared task themselves. */
export function confineAsTheAttemptRunner(task: TaskSpec, paths: JobPaths): void {
  task.writable = [paths.work, paths.logs, paths.results, ...(task.writable ?? [])];
  task.readable = [paths.control, ...(task.readable ?? [])];
}
