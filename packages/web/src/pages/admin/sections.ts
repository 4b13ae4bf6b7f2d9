// The admin sections, one chunk loaded on the first visit to /admin: most visits never need them,
// and the job page (the one that must be quick) does not carry them.
export { ApiKeysSection } from './api-keys-section';
export { EngineSection } from './engine-section';
export { ImagesSection } from './images-section';
export { InstanceTypesSection } from './instance-types-section';
export { MembersSection } from './members-section';
export { QueuesSection } from './queues-section';
export { UsersSection } from './users-section';
export { WorkspacesSection } from './workspaces-section';
