import { ROLE_ORDER, ROUTE_ROLES, type Role, type RouteAccess, type RouteId, type RouteSpec } from '@runyard/contract';

/**
 * The least workspace role a route needs (null outside a workspace), from the roles table,
 * checked against the route's own flags: a route added without an entry, or with one that does
 * not fit (a workspace role on a route outside any workspace), stops the server at start rather
 * than going unchecked.
 */
export function neededRole(id: RouteId, spec: RouteSpec): Role | null {
  const access = (ROUTE_ROLES as Partial<Record<string, RouteAccess>>)[id];
  const where = `Route ${id} (${spec.method} ${spec.path})`;
  if (!access) throw new Error(`${where} has no entry in ROUTE_ROLES`);
  const role = (ROLE_ORDER as readonly string[]).includes(access) ? (access as Role) : null;
  const fits =
    spec.auth === 'none'
      ? access === 'public'
      : spec.admin
        ? access === 'platformAdmin'
        : spec.workspace
          ? role !== null
          : access === 'user';
  if (!fits) throw new Error(`${where} has the roles entry "${access}", which does not fit the route`);
  return role;
}
