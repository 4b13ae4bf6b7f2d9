import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useWorkspace } from '../../api/workspace';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { ProjectSelect } from '../projects/project-select';
import { useAllProjects } from '../projects/use-projects';
import { Breadcrumb } from './breadcrumb';
import { takesItems } from './explorer-api';
import { ExplorerTable } from './explorer-table';
import { formatBytes } from './format';
import { NewFolderForm } from './new-folder-form';
import { UploadForm } from './upload-form';
import { explorerKey, segmentsOf, useExplorer } from './use-explorer';

/**
 * A project's File Explorer: the project and the folder path are in the URL (`?project=<id>&path=Data/a`),
 * so a folder can be linked to, and the browser's back button goes up.
 */
export function ExplorerSection() {
  const qc = useQueryClient();
  const { workspaceId, role } = useWorkspace();
  const [params, setParams] = useSearchParams();
  const projects = useAllProjects();
  const projectId = params.get('project') ?? '';
  const segments = segmentsOf(params.get('path'));
  const explorer = useExplorer(qc, projectId || null, segments);
  const [message, setMessage] = useState('');
  const canWrite = role !== 'viewer';

  // With no project in the URL, open the first one (replacing the URL, so that back still works).
  const first = projects.data?.[0]?._id;
  useEffect(() => {
    if (!projectId && first) setParams({ tab: 'files', project: first }, { replace: true });
  }, [projectId, first, setParams]);

  const hrefFor = (to: string[]) =>
    `?${new URLSearchParams({ tab: 'files', project: projectId, ...(to.length && { path: to.join('/') }) }).toString()}`;
  const changed = (text: string) => {
    setMessage(text);
    void qc.invalidateQueries({ queryKey: explorerKey(workspaceId, projectId) });
  };

  const walk = explorer.data;
  // The data shown may still be the previous folder's while the next one loads: act on the one shown.
  const shown = walk && walk.trail.length === segments.length ? walk : undefined;
  const here = shown?.trail.at(-1);
  const where = segments.join('/') || 'the project';
  const inData = shown?.trail[0]?.kind === 'Data' || shown?.trail[0]?.name === 'Data';
  const projectName = projects.data?.find((p) => p._id === projectId)?.name ?? 'Project';

  return (
    <section aria-labelledby="explorer-title">
      <h2 id="explorer-title" className="visually-hidden">
        File Explorer
      </h2>
      <div className="form-grid narrow">
        <ProjectSelect
          id="data-project"
          value={projectId}
          onChange={(id) => {
            setMessage('');
            setParams(id ? { tab: 'files', project: id } : { tab: 'files' });
          }}
        />
      </div>
      {projectId && (
        <>
          <Breadcrumb label="Folder path" root={projectName} segments={segments} hrefFor={hrefFor} />
          <p role="status" className="status-line">
            {message}
          </p>
          {explorer.isError && <ErrorNotice error={explorer.error} title="Cannot open this folder" />}
          {explorer.isPending && <Loading what="the folder" />}
          {walk && (
            <div className={explorer.isPlaceholderData ? 'refreshing' : undefined} aria-busy={explorer.isFetching}>
              <ExplorerTable
                teamId={workspaceId}
                projectId={projectId}
                segments={walk.trail.map((f) => f.name)}
                listing={walk.listing}
                hrefFor={hrefFor}
                canWrite={canWrite}
                onChanged={changed}
              />
              {walk.listing.count !== undefined && walk.listing.count > walk.listing.folders.length + walk.listing.files.length && (
                <p className="muted">
                  Showing the first {walk.listing.folders.length + walk.listing.files.length} of {walk.listing.count} items.
                </p>
              )}
            </div>
          )}
          {canWrite && here && takesItems(here) && (
            <div className="side-by-side">
              <NewFolderForm
                key={`mk:${where}`}
                projectId={projectId}
                parent={here}
                where={where}
                onCreated={(name) => changed(`Created the folder "${name}" in ${where}.`)}
              />
              {inData ? (
                <UploadForm
                  key={`up:${where}`}
                  teamId={workspaceId}
                  projectId={projectId}
                  destPath={where}
                  onUploaded={(name, size) => changed(`Uploaded "${name}" (${formatBytes(size)}) to ${where}.`)}
                />
              ) : (
                <p className="notice">Uploads go into Data or a folder made inside it.</p>
              )}
            </div>
          )}
        </>
      )}
    </section>
  );
}
