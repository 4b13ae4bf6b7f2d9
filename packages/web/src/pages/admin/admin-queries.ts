/** The query keys of the admin area: a change invalidates the lists it touches. */
export const adminKeys = {
  all: ['admin'] as const,
  users: () => ['admin', 'users'] as const,
  workspaces: () => ['admin', 'workspaces'] as const,
  members: (workspaceId: string) => ['admin', 'members', workspaceId] as const,
  apikeys: (userId: string) => ['admin', 'apikeys', userId] as const,
  queues: (workspaceId: string) => ['admin', 'queues', workspaceId] as const,
  instanceTypes: (workspaceId: string) => ['admin', 'instance-types', workspaceId] as const,
  engine: (workspaceId: string) => ['admin', 'engine', workspaceId] as const,
  images: () => ['admin', 'images'] as const,
};
