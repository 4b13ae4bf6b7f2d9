import type { ProjectListReply } from '@runyard/client/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { paths } from '../../app/paths';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { PageHeader } from '../../components/page-header';
import { Time } from '../../components/time';
import { CreateProjectForm } from './create-project-form';
import { Pager } from './pager';
import { projectsKey } from './use-projects';
import { useDebounced } from './use-debounced';
import '../data/area.css';

const PAGE_SIZE = 20;

/** The workspace's projects, searched and paged by the server (`GET /api/v2/projects`), and a new one. */
export function ProjectsPage() {
  const api = useApi();
  const { workspaceId, role } = useWorkspace();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const query = useDebounced(search.trim());
  const [message, setMessage] = useState('');
  const list = useQuery({
    queryKey: [...projectsKey(workspaceId), 'page', { page, search: query }],
    queryFn: () =>
      api.request<ProjectListReply>('GET', '/api/v2/projects', {
        query: { teamId: workspaceId, page, pageSize: PAGE_SIZE, ...(query && { search: query }) },
      }),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <PageHeader title="Projects">
        <p className="muted">Projects group jobs, sessions and their data.</p>
      </PageHeader>
      <section aria-labelledby="project-list-title">
        <h2 id="project-list-title" className="visually-hidden">
          Project list
        </h2>
        <div className="toolbar">
          <label>
            Search by name
            <input
              type="search"
              value={search}
              onChange={(e) => {
                setSearch(e.target.value);
                setPage(1);
              }}
            />
          </label>
        </div>
        <p role="status" className="status-line">
          {message}
        </p>
        {list.isError && <ErrorNotice error={list.error} title="Projects" />}
        {list.isPending && <Loading what="the projects" />}
        {list.data &&
          (list.data.projects.length ? (
            <div className={`table-wrap${list.isPlaceholderData ? ' refreshing' : ''}`} aria-busy={list.isFetching}>
              <table>
                <caption className="visually-hidden">Projects</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Owner</th>
                    <th scope="col">Created</th>
                    <th scope="col">Jobs</th>
                    <th scope="col">Workflows</th>
                    <th scope="col">Sessions</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.projects.map((p) => (
                    <tr key={p._id}>
                      <th scope="row" className="name-cell">
                        <Link
                          to={`${paths.data}?${new URLSearchParams({ tab: 'files', project: p._id }).toString()}`}
                          title={`The data of ${p.name}`}
                        >
                          {p.name}
                        </Link>
                      </th>
                      <td>{[p.user.name, p.user.surname].filter(Boolean).join(' ') || p.user.email}</td>
                      <td>
                        <Time iso={p.createdAt} />
                      </td>
                      <td>{p.jobCount}</td>
                      <td>{p.workflowCount}</td>
                      <td>{p.notebookSessionCount}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p className="muted empty-folder">No project{search ? ` matches "${search}"` : ' yet'}.</p>
          ))}
        {list.data && (
          <Pager page={page} pageCount={Math.ceil(list.data.total / PAGE_SIZE)} total={list.data.total} noun="projects" onPage={setPage} />
        )}
      </section>
      {role !== 'viewer' && <CreateProjectForm onCreated={(name) => setMessage(`Created the project "${name}".`)} />}
    </>
  );
}
