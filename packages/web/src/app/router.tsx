import { createBrowserRouter, Navigate } from 'react-router';
import { AdminPage } from '../pages/admin/admin-page';
import { DataPage } from '../pages/data/data-page';
import { JobListPage } from '../pages/jobs/job-list-page';
import { JobPage } from '../pages/jobs/job-page';
import { LaunchPage } from '../pages/jobs/launch-page';
import { ProjectsPage } from '../pages/projects/projects-page';
import { SessionPage } from '../pages/sessions/session-page';
import { SessionsPage } from '../pages/sessions/sessions-page';
import { SignInPage } from '../pages/sign-in/sign-in-page';
import { WorkflowsPage } from '../pages/workflows/workflows-page';
import { NotFoundPage } from './not-found-page';
import { Layout } from './layout';
import { paths } from './paths';

/** Every page of the dashboard; paths as CloudOS's where CloudOS prints them (job and session links). */
export const router = createBrowserRouter(
  [
    { path: paths.signIn, element: <SignInPage /> },
    {
      element: <Layout />,
      children: [
        { index: true, element: <Navigate to={paths.jobs} replace /> },
        { path: paths.jobs, element: <JobListPage /> },
        { path: `${paths.jobs}/:jobId`, element: <JobPage /> },
        { path: paths.launch, element: <LaunchPage /> },
        { path: paths.data, element: <DataPage /> },
        { path: paths.workflows, element: <WorkflowsPage /> },
        { path: paths.projects, element: <ProjectsPage /> },
        { path: paths.sessions, element: <SessionsPage /> },
        { path: `${paths.sessions}/view/:sessionId`, element: <SessionPage /> },
        { path: `${paths.admin}/*`, element: <AdminPage /> },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  { basename: '/app' },
);
