import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Time } from '../../components/time';
import type { FolderRef } from './job-view';

/** Statuses a deletion passes through before it is done. */
const MOVING = new Set(['scheduledForDeletion', 'deleting']);

const WORDS: Record<string, string> = {
  ready: 'kept',
  scheduledForDeletion: 'scheduled for deletion',
  deleting: 'being deleted',
  deleted: 'deleted',
  failedToDelete: 'deletion failed (it can be asked again)',
};

/** Where a deletion of the job's results (or work directory) stands: the folder's status, who asked and when. */
export function DataDeletionStatus({ label, folder, workspaceId }: { label: string; folder: FolderRef; workspaceId: string }) {
  const api = useApi();
  const status = useQuery({
    queryKey: ['folder-status', folder.folderId, workspaceId],
    queryFn: async () => (await api.getFolderDeletionStatus(folder.folderId, workspaceId))[0]?.status ?? null,
    refetchInterval: (q) => (q.state.data && MOVING.has(q.state.data) ? 2_000 : false),
  });
  const by = folder.deletedBy && [folder.deletedBy.name, folder.deletedBy.surname].filter(Boolean).join(' ');
  return (
    <>
      <p role="status" className="jobs-deletion">
        {label}: {status.data ? (WORDS[status.data] ?? status.data) : status.isPending ? '…' : 'unknown'}
        {by && (
          <>
            {' '}
            — deletion asked by {by}
            {folder.deletionDate && (
              <>
                {' '}
                on <Time iso={folder.deletionDate} />
              </>
            )}
          </>
        )}
      </p>
      {status.error !== null && <ErrorNotice error={status.error} title={`${label} status`} />}
    </>
  );
}
