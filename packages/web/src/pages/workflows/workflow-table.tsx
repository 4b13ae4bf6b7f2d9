import type { Workflow } from '@runyard/client/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { BranchList } from './branch-list';
import { branchesOf, workflowsKey } from './workflows-api';

function Branches({ workflow }: { workflow: Workflow }) {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  const branches = useQuery({
    queryKey: [...workflowsKey(workspaceId), 'branches', workflow._id],
    queryFn: () => branchesOf(api, workspaceId, workflow),
  });
  if (branches.isError) return <ErrorNotice error={branches.error} title="Branches" />;
  if (!branches.data) return <Loading what="the branches" />;
  return <BranchList reply={branches.data} defaultBranch={workflow.repository?.branch} label={`Branches of ${workflow.name}`} />;
}

function ArchiveButton({ workflow, onDone }: { workflow: Workflow; onDone(message: string): void }) {
  const api = useApi();
  const qc = useQueryClient();
  const { workspaceId } = useWorkspace();
  const archived = workflow.archived.status;
  const change = useMutation({
    mutationFn: () => (archived ? api.unarchiveWorkflow(workspaceId, workflow._id) : api.archiveWorkflow(workspaceId, workflow._id)),
    onSuccess: () => {
      onDone(`${archived ? 'Unarchived' : 'Archived'} the workflow "${workflow.name}".`);
      void qc.invalidateQueries({ queryKey: workflowsKey(workspaceId) });
    },
    onError: (e) => onDone(`Could not ${archived ? 'unarchive' : 'archive'} "${workflow.name}": ${(e as Error).message}`),
  });
  return (
    <button
      type="button"
      className="secondary"
      disabled={change.isPending}
      aria-label={`${archived ? 'Unarchive' : 'Archive'} ${workflow.name}`}
      onClick={() => change.mutate()}
    >
      {archived ? 'Unarchive' : 'Archive'}
    </button>
  );
}

/** The workflows of one page: type, repository and its default branch, archived; branches open under a row. */
export function WorkflowTable({
  workflows,
  canWrite,
  onChanged,
}: {
  workflows: Workflow[];
  canWrite: boolean;
  onChanged(message: string): void;
}) {
  const [openBranches, setOpenBranches] = useState<string | null>(null);
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Workflows</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Repository</th>
            <th scope="col">Branch</th>
            <th scope="col">Archived</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {workflows.map((w) => {
            const repo = w.repository;
            const open = openBranches === w._id;
            return (
              <Fragment key={w._id}>
                <tr>
                  <th scope="row" className="name-cell">
                    {w.name}
                    {w.description && <div className="muted">{w.description}</div>}
                  </th>
                  <td>{w.workflowType}</td>
                  <td className="name-cell">
                    {repo ? (
                      <>
                        {repo.owner.login}/{repo.name} <span className="muted">({repo.platform})</span>
                      </>
                    ) : (
                      <span className="mono">{w.containerName ?? '—'}</span>
                    )}
                  </td>
                  <td>{repo?.branch ? <code>{repo.branch}</code> : '—'}</td>
                  <td>{w.archived.status ? 'Yes' : 'No'}</td>
                  <td>
                    <div className="row-actions">
                      {repo && (
                        <button
                          type="button"
                          className="secondary"
                          aria-expanded={open}
                          aria-label={`Branches of ${w.name}`}
                          onClick={() => setOpenBranches(open ? null : w._id)}
                        >
                          Branches
                        </button>
                      )}
                      {canWrite && <ArchiveButton workflow={w} onDone={onChanged} />}
                    </div>
                  </td>
                </tr>
                {open && (
                  <tr className="row-panel">
                    <td colSpan={6}>
                      <Branches workflow={w} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
