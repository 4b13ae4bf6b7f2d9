/** An ISO time shown in the reader's locale, with the exact value on hover and for machines. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>;
  return (
    <time dateTime={iso} title={iso}>
      {date.toLocaleString()}
    </time>
  );
}
