import { Fragment, useState } from 'react';
import { Link } from 'react-router';
import { useApi } from '../../api/session';
import { Time } from '../../components/time';
import { changeable, isDataset, isFolder, objectHref, objectOf, takesItems, type ExplorerItem, type Listing } from './explorer-api';
import { formatBytes } from './format';
import { DeletePanel, MovePanel, RenamePanel } from './item-panels';

type Action = 'rename' | 'move' | 'delete';

function typeOf(item: ExplorerItem): string {
  if (isDataset(item)) return 'Dataset';
  if (item.folderType === 'VirtualFolder') return 'Folder';
  if (isFolder(item)) return 'Storage folder';
  return 'File';
}

const keyOf = (item: ExplorerItem) => `${isFolder(item) ? 'd' : 'f'}:${item._id ?? item.name}`;

/**
 * One folder's content: folders first (each a link one level deeper), then files (with a download
 * link); rename, move and delete open a panel under the row, one at a time.
 */
export function ExplorerTable({
  teamId,
  projectId,
  segments,
  listing,
  hrefFor,
  canWrite,
  onChanged,
}: {
  teamId: string;
  projectId: string;
  segments: string[];
  listing: Listing;
  hrefFor(segments: string[]): string;
  canWrite: boolean;
  onChanged(message: string): void;
}) {
  const api = useApi();
  const [open, setOpen] = useState<{ key: string; action: Action } | null>(null);
  const items = [...listing.folders, ...listing.files];
  const here = segments.length ? segments.join('/') : 'the project';
  // Where an item can be moved from here: the folder above, and the folders beside it that take items.
  const suggestions = [
    ...(segments.length > 1 ? [segments.slice(0, -1).join('/')] : []),
    ...listing.folders.filter(takesItems).map((f) => [...segments, f.name].join('/')),
  ];

  if (!items.length) return <p className="muted empty-folder">Nothing in {here} yet.</p>;
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Content of {here}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Size</th>
            <th scope="col">Modified</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => {
            const key = keyOf(item);
            const object = isFolder(item) ? null : objectOf(item);
            const action = open?.key === key ? open.action : null;
            const toggle = (a: Action) => setOpen(action === a ? null : { key, action: a });
            const panel = {
              item,
              projectId,
              onCancel: () => setOpen(null),
              onDone: (m: string) => {
                setOpen(null);
                onChanged(m);
              },
            };
            return (
              <Fragment key={key}>
                <tr>
                  <th scope="row" className="name-cell">
                    {isFolder(item) ? <Link to={hrefFor([...segments, item.name])}>{item.name}/</Link> : item.name}
                    {item.status && item.status !== 'ready' && <span className="item-status"> ({item.status})</span>}
                  </th>
                  <td>{typeOf(item)}</td>
                  <td>{isFolder(item) ? '—' : formatBytes(item.sizeInBytes)}</td>
                  <td>
                    <Time iso={item.updatedAt ?? item.createdAt} />
                  </td>
                  <td>
                    <div className="row-actions">
                      {object && (
                        <a
                          className="button secondary"
                          href={objectHref(api, teamId, object.bucket, object.key)}
                          download={item.name}
                          aria-label={`Download ${item.name}`}
                        >
                          Download
                        </a>
                      )}
                      {canWrite && changeable(item) && (
                        <>
                          <button
                            type="button"
                            className="secondary"
                            aria-expanded={action === 'rename'}
                            aria-label={`Rename ${item.name}`}
                            onClick={() => toggle('rename')}
                          >
                            Rename
                          </button>
                          <button
                            type="button"
                            className="secondary"
                            aria-expanded={action === 'move'}
                            aria-label={`Move ${item.name}`}
                            onClick={() => toggle('move')}
                          >
                            Move
                          </button>
                          <button
                            type="button"
                            className="secondary"
                            aria-expanded={action === 'delete'}
                            aria-label={`Delete ${item.name}`}
                            onClick={() => toggle('delete')}
                          >
                            Delete
                          </button>
                        </>
                      )}
                    </div>
                  </td>
                </tr>
                {action && (
                  <tr className="row-panel">
                    <td colSpan={5}>
                      {action === 'rename' && <RenamePanel {...panel} />}
                      {action === 'move' && (
                        <MovePanel {...panel} suggestions={suggestions.filter((s) => s !== [...segments, item.name].join('/'))} />
                      )}
                      {action === 'delete' && <DeletePanel {...panel} />}
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
