import { lazy, Suspense, type ReactNode } from 'react';
import { Navigate, NavLink, Route, Routes } from 'react-router';
import { paths } from '../../app/paths';
import { Loading } from '../../components/loading';
import { PageHeader } from '../../components/page-header';
import { useAdminAccess, type Need } from './admin-access';
import './admin.css';

type Sections = typeof import('./sections');
const section = (name: keyof Sections) => lazy(() => import('./sections').then((m) => ({ default: m[name] })));
const UsersSection = section('UsersSection');
const WorkspacesSection = section('WorkspacesSection');
const MembersSection = section('MembersSection');
const ApiKeysSection = section('ApiKeysSection');
const QueuesSection = section('QueuesSection');
const InstanceTypesSection = section('InstanceTypesSection');
const EngineSection = section('EngineSection');
const ImagesSection = section('ImagesSection');

interface Section {
  path: string;
  label: string;
  /** Who the section is offered to (the sub-navigation); others who reach it by URL are told what they need. */
  need: Need;
  element: ReactNode;
}

const SECTIONS: Section[] = [
  { path: 'users', label: 'Users', need: 'platformAdmin', element: <UsersSection /> },
  { path: 'workspaces', label: 'Workspaces', need: 'platformAdmin', element: <WorkspacesSection /> },
  { path: 'members', label: 'Members and roles', need: 'platformAdmin', element: <MembersSection /> },
  { path: 'keys', label: 'API keys', need: 'platformAdmin', element: <ApiKeysSection /> },
  { path: 'images', label: 'Images', need: 'platformAdmin', element: <ImagesSection /> },
  { path: 'queues', label: 'Queues', need: 'viewer', element: <QueuesSection /> },
  { path: 'instance-types', label: 'Instance types', need: 'viewer', element: <InstanceTypesSection /> },
  { path: 'engine', label: 'Engine server', need: 'viewer', element: <EngineSection /> },
];

// Links are absolute: inside a splat route (/admin/*) a relative link resolves below the current section.

/**
 * Administration at /admin/*: one page, one h1, a sub-navigation of the sections the signed-in
 * person may use, each section a nested route (/admin/users, /admin/keys, ...).
 */
export function AdminPage() {
  const access = useAdminAccess();
  const offered = SECTIONS.filter((s) => access.has(s.need));
  return (
    <>
      <PageHeader title="Administration">
        <p className="muted">
          {access.platformAdmin
            ? 'You are a platform administrator: users, workspaces, members, keys and queues of the whole platform.'
            : `The settings of the workspace ${access.workspaceName}, where you are ${access.role}.`}
        </p>
      </PageHeader>
      <nav aria-label="Administration" className="admin-nav">
        <ul>
          {offered.map((s) => (
            <li key={s.path}>
              <NavLink to={`${paths.admin}/${s.path}`}>{s.label}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="admin-body">
        <Suspense fallback={<Loading what="this section" />}>
          <Routes>
            <Route index element={<Navigate to={`${paths.admin}/${offered[0]?.path ?? 'queues'}`} replace />} />
            {SECTIONS.map((s) => (
              <Route key={s.path} path={s.path} element={s.element} />
            ))}
            <Route
              path="*"
              element={
                <p className="notice" role="alert">
                  There is no such administration page. Choose one above.
                </p>
              }
            />
          </Routes>
        </Suspense>
      </div>
    </>
  );
}
