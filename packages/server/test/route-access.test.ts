import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROUTES, type RouteId, type RouteSpec } from '@runyard/contract';
import { neededRole } from '../src/http/route-access.js';

// The server registers no route without a fitting roles entry (registerRoutes calls neededRole for each).
describe('roles table at start', () => {
  it('gives every route of the table a fitting entry: a workspace role exactly on workspace routes', () => {
    for (const [id, spec] of Object.entries(ROUTES) as [RouteId, RouteSpec][]) {
      const role = neededRole(id, spec);
      assert.equal(role !== null, spec.workspace, id);
    }
  });

  it('refuses a route without an entry', () => {
    assert.throws(() => neededRole('projectPurge' as RouteId, ROUTES.projectCreate), /projectPurge .* has no entry in ROUTE_ROLES/);
  });

  it('refuses an entry that does not fit the route', () => {
    assert.throws(() => neededRole('userMe', { ...ROUTES.userMe, workspace: true }), /"user", which does not fit/);
    assert.throws(() => neededRole('projectCreate', { ...ROUTES.projectCreate, workspace: false }), /"member", which does not fit/);
    assert.throws(() => neededRole('adminUserList', { ...ROUTES.adminUserList, admin: false }), /"platformAdmin", which does not fit/);
    assert.throws(() => neededRole('health', { ...ROUTES.health, auth: 'apikey' }), /"public", which does not fit/);
  });
});
