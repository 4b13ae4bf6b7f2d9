import type { Generated } from 'kysely';

/** Table row types. Booleans are 0/1 integers and times ISO-8601 text, the same on both databases. */
export interface UserTable {
  id: string;
  username: string;
  email: string;
  name: string;
  surname: string;
  is_admin: number;
  active: number;
  created_at: string;
}

export interface WorkspaceTable {
  id: string;
  name: string;
  created_at: string;
}

export interface MembershipTable {
  workspace_id: string;
  user_id: string;
  role: string;
  created_at: string;
}

export interface ApiKeyTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ProjectTable {
  id: string;
  workspace_id: string;
  name: string;
  user_id: string;
  created_at: string;
  updated_at: string;
  workflow_count: Generated<number>;
  job_count: Generated<number>;
  notebook_session_count: Generated<number>;
}

export interface Database {
  users: UserTable;
  workspaces: WorkspaceTable;
  memberships: MembershipTable;
  api_keys: ApiKeyTable;
  projects: ProjectTable;
}
