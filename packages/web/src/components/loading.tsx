/** A quiet placeholder of fixed height, so that content arriving does not make the page jump. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}
