/** Previous / next over the pages of a server-side list; the count says where one is. */
export function Pager({
  page,
  pageCount,
  total,
  noun,
  onPage,
}: {
  page: number;
  pageCount: number;
  total: number;
  noun: string;
  onPage(page: number): void;
}) {
  const last = Math.max(1, pageCount);
  return (
    <nav className="pager" aria-label={`Pages of ${noun}`}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {Math.min(page, last)} of {last} ({total} {noun})
      </span>
      <button type="button" className="secondary" disabled={page >= last} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
