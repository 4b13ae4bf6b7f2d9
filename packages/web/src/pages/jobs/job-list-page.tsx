import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { useWorkspace } from '../../api/workspace';
import { paths } from '../../app/paths';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { PageHeader } from '../../components/page-header';
import { JobListFilters } from './job-list-filters';
import { useJobListParams } from './job-list-params';
import { JobPager } from './job-pager';
import { JobTable } from './job-table';
import { useJobList } from './use-job-list';
import './jobs.css';

/** The jobs of the workspace: the server's filters and pages, kept in the URL; live while jobs run. */
export function JobListPage() {
  const { workspaceId, workspaceName } = useWorkspace();
  const [params, update] = useJobListParams();
  const { list, ownerError } = useJobList(workspaceId, params);
  // Another workspace: its projects, workflows and queues are others, so those filters go.
  const shownWorkspace = useRef(workspaceId);
  useEffect(() => {
    if (shownWorkspace.current === workspaceId) return;
    shownWorkspace.current = workspaceId;
    update({ project: '', workflow: '', queue: '' });
  }, [workspaceId, update]);
  const page = list.data;
  return (
    <>
      <PageHeader
        title="Jobs"
        actions={
          <Link className="button" to={paths.launch}>
            Launch
          </Link>
        }
      >
        <p className="muted">The jobs of workspace {workspaceName}.</p>
      </PageHeader>
      <JobListFilters key={workspaceId} workspaceId={workspaceId} params={params} onChange={update} />
      {ownerError !== null && <ErrorNotice error={ownerError} title="Owner filter" />}
      {list.error !== null && <ErrorNotice error={list.error} title="Could not read the jobs" />}
      {/* Seen, not announced: a screen reader would hear it every few seconds. */}
      <p className="refresh-note muted" aria-hidden="true">
        {list.isFetching && page ? 'Updating…' : ''}
      </p>
      {!page && list.isPending && !ownerError && <Loading what="the jobs" />}
      {page && (
        <>
          {page.jobs.length === 0 ? (
            <p className="card">
              {page.page > 1 && page.total > 0 ? (
                <>
                  There is no page {page.page}.{' '}
                  <button type="button" className="secondary" onClick={() => update({ page: 1 })}>
                    First page
                  </button>
                </>
              ) : (
                'No jobs match these filters.'
              )}
            </p>
          ) : (
            <JobTable jobs={page.jobs} caption={`Jobs of workspace ${workspaceName}, page ${page.page}`} busy={list.isPlaceholderData} />
          )}
          <JobPager
            page={page.page}
            size={page.size}
            total={page.total}
            onPage={(p) => update({ page: p })}
            onSize={(s) => update({ size: s })}
          />
        </>
      )}
    </>
  );
}
