import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { Time } from '../../components/time';
import { Breadcrumb } from './breadcrumb';
import { objectHref } from './explorer-api';
import { formatBytes } from './format';
import { azureAccountOf, listStorage, workspaceBucket } from './storage-api';
import { segmentsOf } from './use-explorer';

/**
 * The workspace's storage, one level at a time (`runyard storage ls`): its bucket by default, any
 * other it may read by name; the bucket and folder are in the URL. Files download through the
 * storage object route.
 */
export function StorageSection() {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  const [params, setParams] = useSearchParams();
  const bucket = params.get('bucket') || workspaceBucket(workspaceId);
  const segments = segmentsOf(params.get('prefix'));
  const prefix = segments.join('/');
  const [bucketInput, setBucketInput] = useState(bucket);
  useEffect(() => setBucketInput(bucket), [bucket]);

  const azure = useQuery({ queryKey: ['storage-kind', workspaceId], queryFn: () => azureAccountOf(api, workspaceId), staleTime: Infinity });
  const account = azure.data ?? null;
  const listing = useQuery({
    queryKey: ['storage', workspaceId, bucket, prefix, account],
    queryFn: () => listStorage(api, workspaceId, bucket, prefix, account),
    enabled: azure.isSuccess,
    placeholderData: keepPreviousData,
  });

  const hrefFor = (to: string[]) =>
    `?${new URLSearchParams({ tab: 'storage', bucket, ...(to.length && { prefix: to.join('/') }) }).toString()}`;
  const scheme = account ? `az://${account}.blob.core.windows.net/` : 's3://';
  const open = (e: FormEvent) => {
    e.preventDefault();
    const name = bucketInput.trim();
    if (name) setParams({ tab: 'storage', bucket: name });
  };

  return (
    <section aria-labelledby="storage-title">
      <h2 id="storage-title" className="visually-hidden">
        Storage
      </h2>
      <form className="form-grid narrow" onSubmit={open}>
        <label htmlFor="storage-bucket">{account ? 'Container' : 'Bucket'}</label>
        <div className="inline-fields">
          <input id="storage-bucket" value={bucketInput} onChange={(e) => setBucketInput(e.target.value)} />
          <button type="submit" className="secondary">
            Open
          </button>
        </div>
      </form>
      <Breadcrumb label="Storage path" root={`${scheme}${bucket}`} segments={segments} hrefFor={hrefFor} />
      {azure.isError && <ErrorNotice error={azure.error} title="Storage" />}
      {listing.isError && <ErrorNotice error={listing.error} title="Cannot list this folder" />}
      {(azure.isPending || listing.isPending) && !listing.isError && <Loading what="the storage" />}
      {listing.data &&
        (listing.data.length === 0 ? (
          <p className="muted empty-folder">Nothing here.</p>
        ) : (
          <div className={`table-wrap${listing.isPlaceholderData ? ' refreshing' : ''}`} aria-busy={listing.isFetching}>
            <table>
              <caption className="visually-hidden">
                Content of {scheme}
                {bucket}/{prefix}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Size</th>
                  <th scope="col">Last modified</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {listing.data.map((e) => (
                  <tr key={`${e.isDir ? 'd' : 'f'}:${e.path}`}>
                    <th scope="row" className="name-cell">
                      {e.isDir ? <Link to={hrefFor([...segments, e.name])}>{e.name}/</Link> : e.name}
                    </th>
                    <td>{e.isDir ? '—' : formatBytes(e.size)}</td>
                    <td>
                      <Time iso={e.lastModified} />
                    </td>
                    <td>
                      {!e.isDir && (
                        <a
                          className="button secondary"
                          href={objectHref(api, workspaceId, bucket, e.path)}
                          download={e.name}
                          aria-label={`Download ${e.name}`}
                        >
                          Download
                        </a>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}
