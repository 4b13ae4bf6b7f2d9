import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { ErrorNotice } from '../../components/error-notice';
import { ConfirmStep } from '../../components/confirm-step';
import { deleteItem, explorerOf, isFolder, moveItem, renameItem, takesItems, type ExplorerItem } from './explorer-api';
import { segmentsOf, walk } from './use-explorer';

/** What every panel of a row needs: the item, its project, and what to do when done or dismissed. */
export interface PanelProps {
  item: ExplorerItem;
  projectId: string;
  onDone(message: string): void;
  onCancel(): void;
}

const noun = (item: ExplorerItem) => (isFolder(item) ? 'folder' : 'file');

export function RenamePanel({ item, projectId, onDone, onCancel }: PanelProps) {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  const id = useId();
  const [name, setName] = useState(item.name);
  const rename = useMutation({
    mutationFn: (next: string) => renameItem(explorerOf(api, workspaceId, projectId), item, next),
    onSuccess: (_r, next) => onDone(`Renamed "${item.name}" to "${next}".`),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate(name.trim());
  };
  return (
    <form onSubmit={submit} className="panel-form" aria-label={`Rename ${item.name}`}>
      <label htmlFor={id}>New name for {item.name}</label>
      <input id={id} value={name} required maxLength={200} autoFocus onChange={(e) => setName(e.target.value)} />
      <div className="actions">
        <button type="submit" disabled={rename.isPending || !name.trim() || name.trim() === item.name}>
          {rename.isPending ? 'Renaming…' : 'Save name'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {rename.isError && <ErrorNotice error={rename.error} title="Not renamed" />}
    </form>
  );
}

/** Moves into a dataset or a virtual folder, named by its path in the project (suggestions: the folders at hand). */
export function MovePanel({ item, projectId, onDone, onCancel, suggestions }: PanelProps & { suggestions: string[] }) {
  const api = useApi();
  const qc = useQueryClient();
  const { workspaceId } = useWorkspace();
  const id = useId();
  const [path, setPath] = useState('');
  const move = useMutation({
    mutationFn: async (destPath: string) => {
      const segments = segmentsOf(destPath);
      if (!segments.length) throw new Error('Name the folder to move into, e.g. Data/inputs.');
      const dest = (await walk(qc, api, workspaceId, projectId, segments)).trail.at(-1)!;
      if (!takesItems(dest))
        throw new Error(`"${segments.join('/')}" is a storage folder: items move into a dataset or a folder made here.`);
      await moveItem(explorerOf(api, workspaceId, projectId), item, dest);
      return segments.join('/');
    },
    onSuccess: (dest) => onDone(`Moved "${item.name}" to ${dest}.`),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    move.mutate(path);
  };
  return (
    <form onSubmit={submit} className="panel-form" aria-label={`Move ${item.name}`}>
      <label htmlFor={id}>Move {item.name} to folder</label>
      <input
        id={id}
        value={path}
        required
        autoFocus
        list={`${id}-list`}
        placeholder="Data/inputs"
        onChange={(e) => setPath(e.target.value)}
      />
      <datalist id={`${id}-list`}>
        {suggestions.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      <div className="actions">
        <button type="submit" disabled={move.isPending || !path.trim()}>
          {move.isPending ? 'Moving…' : 'Move here'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {move.isError && <ErrorNotice error={move.error} title="Not moved" />}
    </form>
  );
}

export function DeletePanel({ item, projectId, onDone, onCancel }: PanelProps) {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  const remove = useMutation({
    mutationFn: () => deleteItem(explorerOf(api, workspaceId, projectId), item),
    onSuccess: () => onDone(`Deleted the ${noun(item)} "${item.name}".`),
  });
  const question = isFolder(item) ? `Delete the folder "${item.name}" and everything in it?` : `Delete the file "${item.name}"?`;
  return (
    <ConfirmStep
      question={question}
      confirmLabel={`Yes, delete ${noun(item)}`}
      busy={remove.isPending}
      onConfirm={() => remove.mutate()}
      onCancel={onCancel}
    >
      {item.isManagedByLifebit ? (
        <p className="notice">Runyard keeps this {noun(item)}'s data: deleting it removes the data from storage for good.</p>
      ) : (
        isFolder(item) && (
          <p className="notice">Files uploaded into it are deleted from storage too; links to other data only lose their entry.</p>
        )
      )}
      {remove.isError && <ErrorNotice error={remove.error} title="Not deleted" />}
    </ConfirmStep>
  );
}
