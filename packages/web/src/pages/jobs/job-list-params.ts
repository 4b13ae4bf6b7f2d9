import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';

export const PAGE_SIZES = [25, 50, 100] as const;

/** The list's filters and page, kept in the URL's query so that a link or a reload shows the same jobs. */
export interface JobListParams {
  status: string;
  /** Part of the job name. */
  name: string;
  /** Ids: of a project, a workflow, a queue. */
  project: string;
  workflow: string;
  queue: string;
  /** A username or display name (resolved to the member's id). */
  owner: string;
  /** Only the signed-in person's jobs. */
  mine: boolean;
  archived: boolean;
  page: number;
  size: number;
}

export type JobFilters = Omit<JobListParams, 'page' | 'size'>;

export const NO_FILTERS: JobFilters = {
  status: '',
  name: '',
  project: '',
  workflow: '',
  queue: '',
  owner: '',
  mine: false,
  archived: false,
};

function positive(text: string | null, fallback: number): number {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export function readParams(q: URLSearchParams): JobListParams {
  const size = positive(q.get('size'), PAGE_SIZES[0]);
  return {
    status: q.get('status') ?? '',
    name: q.get('name') ?? '',
    project: q.get('project') ?? '',
    workflow: q.get('workflow') ?? '',
    queue: q.get('queue') ?? '',
    owner: q.get('owner') ?? '',
    mine: q.get('mine') === '1',
    archived: q.get('archived') === '1',
    page: positive(q.get('page'), 1),
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : PAGE_SIZES[0],
  };
}

/** Only what differs from the defaults goes in the URL (short links). */
export function writeParams(p: JobListParams): URLSearchParams {
  const q = new URLSearchParams();
  for (const key of ['status', 'name', 'project', 'workflow', 'queue', 'owner'] as const) if (p[key].trim()) q.set(key, p[key].trim());
  if (p.mine) q.set('mine', '1');
  if (p.archived) q.set('archived', '1');
  if (p.page > 1) q.set('page', String(p.page));
  if (p.size !== PAGE_SIZES[0]) q.set('size', String(p.size));
  return q;
}

/** The parameters of the URL, and a setter; new filters go back to the first page. */
export function useJobListParams(): [JobListParams, (change: Partial<JobListParams>) => void] {
  const [search, setSearch] = useSearchParams();
  const params = useMemo(() => readParams(search), [search]);
  const update = useCallback(
    (change: Partial<JobListParams>) => {
      setSearch((prev) => {
        const current = readParams(prev);
        const movesPage = 'page' in change;
        return writeParams({ ...current, ...change, page: movesPage ? change.page! : 1 });
      });
    },
    [setSearch],
  );
  return [params, update];
}
