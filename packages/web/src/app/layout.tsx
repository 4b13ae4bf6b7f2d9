import { Navigate, NavLink, Outlet, useLocation } from 'react-router';
import { useSession, useUser } from '../api/session';
import { useWorkspace, WorkspaceProvider } from '../api/workspace';
import { Loading } from '../components/loading';
import { paths } from './paths';

/** The frame of every signed-in page: header, navigation, workspace picker; sends others to sign in. */
export function Layout() {
  const { state } = useSession();
  const location = useLocation();
  if (state.status === 'loading') return <Loading what="your session" />;
  if (state.status === 'signed-out') {
    const next = location.pathname + location.search;
    return <Navigate to={`${paths.signIn}?next=${encodeURIComponent(next)}`} replace />;
  }
  return (
    <WorkspaceProvider>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header />
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </WorkspaceProvider>
  );
}

const NAV = [
  { to: paths.jobs, label: 'Jobs' },
  { to: paths.launch, label: 'Launch' },
  { to: paths.data, label: 'Data' },
  { to: paths.workflows, label: 'Workflows' },
  { to: paths.projects, label: 'Projects' },
  { to: paths.sessions, label: 'Sessions' },
];

function Header() {
  const user = useUser();
  const { signOut } = useSession();
  const nav =
    user.isAdmin || user.workspaces.some((w) => w.role === 'admin' || w.role === 'owner')
      ? [...NAV, { to: paths.admin, label: 'Admin' }]
      : NAV;
  return (
    <header className="app-header">
      <NavLink to={paths.jobs} className="brand">
        Runyard
      </NavLink>
      <nav aria-label="Main">
        <ul>
          {nav.map((item) => (
            <li key={item.to}>
              <NavLink to={item.to} end={item.to === paths.jobs ? false : undefined}>
                {item.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="header-tools">
        <WorkspacePicker />
        <span className="user-name" title={user.email}>
          {user.name || user.username}
        </span>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </header>
  );
}

function WorkspacePicker() {
  const user = useUser();
  const { workspaceId, select } = useWorkspace();
  return (
    <label className="workspace-picker">
      <span>Workspace</span>
      <select value={workspaceId} onChange={(e) => select(e.target.value)}>
        {user.workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name} ({w.role})
          </option>
        ))}
      </select>
    </label>
  );
}
