import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { parseStorageAddress } from '@runyard/client/core';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { Time } from '../../components/time';

function formatSize(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u += 1;
  }
  return `${u === 0 ? n : n.toFixed(1)} ${units[u]}`;
}

/**
 * A folder of the workspace's storage (a job's results or work directory, as a storage URL), one
 * level at a time; a file is a download link to the storage object route (the session cookie
 * authenticates the GET; the reply is an attachment named as the file).
 */
export function StorageBrowser({ url, workspaceId, label }: { url: string; workspaceId: string; label: string }) {
  const api = useApi();
  const root = parseStorageAddress(url);
  const top = root.path.replace(/\/+$/, '');
  const [path, setPath] = useState(top);
  // The folders below the top, for the breadcrumb.
  const below = path.slice(top.length).split('/').filter(Boolean);
  const pathOf = (depth: number) => [top, ...below.slice(0, depth)].filter(Boolean).join('/');
  const listing = useQuery({
    queryKey: ['storage-contents', workspaceId, root.cloudName, root.container, path],
    queryFn: () => api.getStorageContents(root.cloudName, root.cloudMeta, root.container, path, workspaceId),
    placeholderData: keepPreviousData,
  });
  const entries = [...(listing.data ?? [])].sort((a, b) => Number(b.isDir) - Number(a.isDir) || a.name.localeCompare(b.name));

  return (
    <div className="storage-browser">
      <nav aria-label={`${label}: folder`} className="crumbs">
        <ol>
          <li>
            {below.length ? (
              <button type="button" className="link" onClick={() => setPath(top)}>
                {label}
              </button>
            ) : (
              <span aria-current="location">{label}</span>
            )}
          </li>
          {below.map((segment, i) => (
            <li key={`${i}-${segment}`}>
              {i < below.length - 1 ? (
                <button type="button" className="link" onClick={() => setPath(pathOf(i + 1))}>
                  {segment}
                </button>
              ) : (
                <span aria-current="location">{segment}</span>
              )}
            </li>
          ))}
        </ol>
      </nav>
      {listing.error !== null && <ErrorNotice error={listing.error} title={`Could not list the ${label.toLowerCase()}`} />}
      {!listing.data && listing.isPending && <Loading what={label.toLowerCase()} />}
      {listing.data && entries.length === 0 && <p className="muted">This folder is empty.</p>}
      {entries.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">{`${label}: ${path}`}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Size</th>
                <th scope="col">Modified</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.path}>
                  <td>
                    {entry.isDir ? (
                      <button type="button" className="link" onClick={() => setPath(entry.path.replace(/\/+$/, ''))}>
                        {entry.name.replace(/\/+$/, '')}/
                      </button>
                    ) : (
                      <a href={api.storageObjectPath(workspaceId, { bucket: root.container, key: entry.path })} download={entry.name}>
                        {entry.name}
                      </a>
                    )}
                  </td>
                  <td className="num">{entry.isDir ? '' : formatSize(entry.size)}</td>
                  <td>{entry.lastModified ? <Time iso={entry.lastModified} /> : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
