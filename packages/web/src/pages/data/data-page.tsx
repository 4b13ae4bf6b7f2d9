import { Link, useSearchParams } from 'react-router';
import { PageHeader } from '../../components/page-header';
import { ExplorerSection } from './explorer-section';
import { StorageSection } from './storage-section';
import './area.css';

/** Data: a project's File Explorer (datasets and folders, uploads, downloads, changes) and the workspace's storage. */
export function DataPage() {
  const [params] = useSearchParams();
  const tab = params.get('tab') === 'storage' ? 'storage' : 'files';
  return (
    <>
      <PageHeader title="Data">
        <p className="muted">The files of a project, and the storage of the workspace.</p>
      </PageHeader>
      <nav aria-label="Data views" className="view-switch">
        <Link to="?tab=files" aria-current={tab === 'files' ? 'page' : undefined}>
          File Explorer
        </Link>
        <Link to="?tab=storage" aria-current={tab === 'storage' ? 'page' : undefined}>
          Storage
        </Link>
      </nav>
      {tab === 'files' ? <ExplorerSection /> : <StorageSection />}
    </>
  );
}
