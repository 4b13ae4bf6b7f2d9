import type {
  AdminApiKey,
  AdminApiKeyCreated,
  AdminMember,
  AdminUser,
  AdminUserCreateBody,
  AdminWorkspace,
  DockerWorkflowCreateBody,
  EngineDriver,
  EngineServer,
  HpcCluster,
  HpcClusterCreateBody,
  ImageCacheListing,
  ImagePruneBody,
  ImagePruneReply,
  Role,
  Workflow,
} from '@runyard/contract';
import { setWorkspaceEngine } from './cromwell.js';
import type { ApiTransport } from './api-transport.js';

/** Runyard's own administration routes (/api/runyard/admin/...); the caller must be an admin. */
export class AdminClient {
  constructor(private readonly t: ApiTransport) {}

  createUser(body: AdminUserCreateBody): Promise<AdminUser> {
    return this.t.request('POST', '/api/runyard/admin/users', { body });
  }
  async listUsers(): Promise<AdminUser[]> {
    return (await this.t.request<{ users: AdminUser[] }>('GET', '/api/runyard/admin/users')).users;
  }
  deactivateUser(userId: string): Promise<AdminUser> {
    return this.t.request('DELETE', `/api/runyard/admin/users/${encodeURIComponent(userId)}`);
  }
  createWorkspace(name: string, ownerId?: string): Promise<AdminWorkspace> {
    return this.t.request('POST', '/api/runyard/admin/workspaces', { body: { name, ...(ownerId && { ownerId }) } });
  }
  async listWorkspaces(): Promise<AdminWorkspace[]> {
    return (await this.t.request<{ workspaces: AdminWorkspace[] }>('GET', '/api/runyard/admin/workspaces')).workspaces;
  }
  /** Adds the user to the workspace, or changes their role. */
  addMember(workspaceId: string, userId: string, role?: Role): Promise<AdminMember> {
    return this.t.request('POST', '/api/runyard/admin/members', { body: { workspaceId, userId, ...(role && { role }) } });
  }
  async listMembers(workspaceId?: string): Promise<AdminMember[]> {
    return (await this.t.request<{ members: AdminMember[] }>('GET', '/api/runyard/admin/members', { query: { workspaceId } })).members;
  }
  removeMember(workspaceId: string, userId: string): Promise<AdminMember> {
    return this.t.request('DELETE', `/api/runyard/admin/members/${encodeURIComponent(workspaceId)}/${encodeURIComponent(userId)}`);
  }
  /** The returned `apikey` is the only time the secret is shown. */
  createApiKey(userId: string, name?: string): Promise<AdminApiKeyCreated> {
    return this.t.request('POST', '/api/runyard/admin/apikeys', { body: { userId, ...(name && { name }) } });
  }
  async listApiKeys(userId?: string): Promise<AdminApiKey[]> {
    return (await this.t.request<{ apikeys: AdminApiKey[] }>('GET', '/api/runyard/admin/apikeys', { query: { userId } })).apikeys;
  }
  /** A container workflow that bash jobs run in. */
  createDockerWorkflow(body: DockerWorkflowCreateBody): Promise<Workflow> {
    return this.t.request('POST', '/api/runyard/admin/workflows/docker', { body });
  }
  revokeApiKey(keyId: string): Promise<AdminApiKey> {
    return this.t.request('DELETE', `/api/runyard/admin/apikeys/${encodeURIComponent(keyId)}`);
  }
  /** The WDL driver (and, for cromwell, the Cromwell server's URL) of a workspace's engine server, which must be stopped. */
  setWorkspaceEngine(workspaceId: string, driver: EngineDriver, url?: string): Promise<EngineServer> {
    return setWorkspaceEngine(this.t, workspaceId, driver, url);
  }
  /** Registers a Slurm cluster; its id is the `hpcId` of jobs (executionPlatform hpc) and queues. */
  createHpcCluster(body: HpcClusterCreateBody): Promise<HpcCluster> {
    return this.t.request('POST', '/api/runyard/admin/hpc', { body });
  }
  async listHpcClusters(): Promise<HpcCluster[]> {
    return (await this.t.request<{ clusters: HpcCluster[] }>('GET', '/api/runyard/admin/hpc')).clusters;
  }
  /** The image cache of container jobs: its images (least recently used first, with the jobs using each now), total and limit. */
  listImages(): Promise<ImageCacheListing> {
    return this.t.request('GET', '/api/runyard/admin/images');
  }
  /** Removes cached images no job uses: those beyond the limit (no option), all of them (`all`), or one (`digest`). */
  pruneImages(options: ImagePruneBody = {}): Promise<ImagePruneReply> {
    return this.t.request('POST', '/api/runyard/admin/images/prune', { body: options });
  }
}
