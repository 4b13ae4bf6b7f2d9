import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { PageHeader } from '../../components/page-header';
import { Pager } from '../projects/pager';
import { ImportForm } from './import-form';
import { WorkflowTable } from './workflow-table';
import { workflowPage, workflowsKey, type ArchivedFilter } from './workflows-api';
import { useDebounced } from '../projects/use-debounced';
import '../data/area.css';

const PAGE_SIZE = 20;

/** The workspace's workflows (searched and paged by the server), and an import from git. */
export function WorkflowsPage() {
  const api = useApi();
  const { workspaceId, role } = useWorkspace();
  const [search, setSearch] = useState('');
  const [archived, setArchived] = useState<ArchivedFilter>('active');
  const [page, setPage] = useState(1);
  const query = useDebounced(search.trim());
  const [message, setMessage] = useState('');
  const list = useQuery({
    queryKey: [...workflowsKey(workspaceId), 'page', { page, search: query, archived }],
    queryFn: () => workflowPage(api, workspaceId, { page, pageSize: PAGE_SIZE, search: query, archived }),
    placeholderData: keepPreviousData,
  });
  const canWrite = role !== 'viewer';

  return (
    <>
      <PageHeader title="Workflows">
        <p className="muted">Pipelines and containers jobs run; import one from a git repository.</p>
      </PageHeader>
      <section aria-labelledby="workflow-list-title">
        <h2 id="workflow-list-title" className="visually-hidden">
          Workflow list
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
          <label>
            Show
            <select
              value={archived}
              onChange={(e) => {
                setArchived(e.target.value as ArchivedFilter);
                setPage(1);
              }}
            >
              <option value="active">Not archived</option>
              <option value="archived">Archived</option>
              <option value="all">All</option>
            </select>
          </label>
        </div>
        <p role="status" className="status-line">
          {message}
        </p>
        {list.isError && <ErrorNotice error={list.error} title="Workflows" />}
        {list.isPending && <Loading what="the workflows" />}
        {list.data &&
          (list.data.workflows.length ? (
            <div className={list.isPlaceholderData ? 'refreshing' : undefined} aria-busy={list.isFetching}>
              <WorkflowTable workflows={list.data.workflows} canWrite={canWrite} onChanged={setMessage} />
            </div>
          ) : (
            <p className="muted empty-folder">No workflow{search ? ` matches "${search}"` : ' yet'}.</p>
          ))}
        {list.data && (
          <Pager page={page} pageCount={Math.ceil(list.data.total / PAGE_SIZE)} total={list.data.total} noun="workflows" onPage={setPage} />
        )}
      </section>
      {canWrite && <ImportForm />}
    </>
  );
}
