import { PAGE_SIZES } from './job-list-params';

interface Props {
  page: number;
  size: number;
  total: number;
  onPage(page: number): void;
  onSize(size: number): void;
}

/** Previous and next over the server's pages, and how many jobs a page shows. */
export function JobPager({ page, size, total, onPage, onSize }: Props) {
  const pages = Math.max(1, Math.ceil(total / size));
  const first = total === 0 ? 0 : Math.min(total, (page - 1) * size + 1);
  const last = Math.min(total, page * size);
  return (
    <nav className="job-pager" aria-label="Pages of jobs">
      <p className="muted" aria-live="polite">
        {total === 0 ? 'No jobs' : `Jobs ${first}–${last} of ${total}`} · page {page} of {pages}
      </p>
      <div className="actions">
        <label>
          <span>Per page</span>{' '}
          <select value={size} onChange={(e) => onSize(Number(e.target.value))}>
            {PAGE_SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(Math.min(page - 1, pages))}>
          Previous page
        </button>
        <button type="button" className="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
          Next page
        </button>
      </div>
    </nav>
  );
}
