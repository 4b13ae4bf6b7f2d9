import type { Insertable } from 'kysely';
import { isoNow, newObjectId } from '@runyard/contract';
import type { InteractiveSessionTable } from '../../src/store/schema.js';

/**
 * A session row as the database holds it, for tests that put a session in a given state without
 * running one: a Jupyter session of the given workspace, project and user, ready, with no run.
 */
export function sessionRow(
  owner: { workspace_id: string; project_id: string; user_id: string },
  values: Partial<Insertable<InteractiveSessionTable>> = {},
): Insertable<InteractiveSessionTable> {
  const id = values.id ?? newObjectId();
  const now = isoNow();
  return {
    id,
    ...owner,
    name: `s-${id}`,
    backend: 'regular',
    execution_platform: 'aws',
    visibility: 'workspace',
    status: 'ready',
    status_message: null,
    stop_reason: null,
    instance_type: 'c5.xlarge',
    cpus: 1,
    memory_gib: 1,
    price_per_hour_cents: 0,
    is_cost_saving: 0,
    storage_size_gb: 1,
    storage_mode: 'regular',
    cost_limit: -1,
    auto_shutdown_at: null,
    r_version: null,
    cluster_json: null,
    data_items_json: '[]',
    fuse_file_systems_json: '[]',
    request_json: '{}',
    home_bucket: 'b',
    home_prefix: 'p',
    external_id: null,
    ui_address: null,
    ui_token_sealed: null,
    lease_owner: null,
    lease_expires_at: null,
    run_started_at: null,
    last_saved_at: null,
    archived_at: null,
    created_at: now,
    updated_at: now,
    ended_at: null,
    ...values,
  };
}
