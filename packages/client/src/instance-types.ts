// The instance-type catalogue of a Runyard server (its own route, not a CloudOS one).
import type { InstanceTypeListReply } from '@runyard/contract';
import { requireWorkspace } from './jobs-api/types.js';
import type { ApiTransport } from './api-transport.js';

/** `GET /api/runyard/instance-types?teamId=W`: the types jobs may ask for, their size and hourly price. */
export async function getInstanceTypes(t: ApiTransport, workspaceId: string): Promise<InstanceTypeListReply> {
  requireWorkspace(workspaceId);
  return t.request<InstanceTypeListReply>('GET', '/api/runyard/instance-types', { query: { teamId: workspaceId } });
}
