import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROUTES, type RouteId } from '@runyard/contract';
// Relative, not @runyard/contract: the roles table's own source (the mutation tests mutate it; the
// package in node_modules is the built one).
import { ANY_JOB_ROLE, hasRole, ROLE_ORDER, ROUTE_ROLES, type RouteAccess } from '../../../contract/src/route-roles.js';

/**
 * The roles table (contract/src/route-roles.ts) against the access policy, stated here in its own
 * words: a route outside any workspace is open (no key), for any key, or for platform administrators
 * as its flags say; in a workspace, a read needs a viewer and a change a member, but for the few
 * workspace-wide decisions and credentials, which need an admin. No route needs the owner.
 */

/** The workspace routes that only an admin or owner may call, and why. */
const ADMIN_ONLY: Partial<Record<RouteId, string>> = {
  workflowArchive: "hides a workflow from every member's submissions",
  workflowUnarchive: "shows a workflow again in every member's submissions",
  engineTokenShow: "shows the workspace's engine credential",
  engineTokenRotate: "replaces the workspace's engine credential",
};

function policy(id: RouteId): RouteAccess {
  const spec = ROUTES[id];
  if (spec.auth === 'none') return 'public';
  if ('admin' in spec && spec.admin) return 'platformAdmin';
  if (!spec.workspace) return 'user';
  if (ADMIN_ONLY[id]) return 'admin';
  return spec.method === 'GET' ? 'viewer' : 'member';
}

describe('roles table', () => {
  it('gives every route of the contract the access the policy says, and names no other route', () => {
    const ids = Object.keys(ROUTES) as RouteId[];
    assert.deepEqual(Object.keys(ROUTE_ROLES).sort(), [...ids].sort());
    for (const id of ids) assert.equal(ROUTE_ROLES[id], policy(id), id);
  });

  it('orders the workspace roles viewer < member < admin < owner; an unknown role is below every role', () => {
    assert.deepEqual([...ROLE_ORDER], ['viewer', 'member', 'admin', 'owner']);
    ROLE_ORDER.forEach((role, i) => {
      ROLE_ORDER.forEach((needed, j) => assert.equal(hasRole(role, needed), i >= j, `${role} as ${needed}`));
      assert.equal(hasRole('', role), false, `no role as ${role}`);
      assert.equal(hasRole('superuser', role), false, `an unknown role as ${role}`);
      assert.equal(hasRole(role.toUpperCase(), role), false, `${role.toUpperCase()} as ${role}`);
    });
  });

  it("lets admins and owners act on everyone's jobs and sessions, and members on their own only", () => {
    assert.deepEqual(
      ROLE_ORDER.filter((role) => hasRole(role, ANY_JOB_ROLE)),
      ['admin', 'owner'],
    );
  });
});
