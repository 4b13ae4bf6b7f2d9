/** A job's or session's status as text with a colour; the word itself carries the meaning (not the colour alone). */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`status status-${status.replace(/[^a-z-]/gi, '').toLowerCase()}`}>{status}</span>;
}
