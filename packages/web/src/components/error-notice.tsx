import { messageOf } from '../api/errors';

/** A failed request, said in the server's words; `role=alert` so a screen reader reads it at once. */
export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  return (
    <div className="error-notice" role="alert">
      {title && <strong>{title}: </strong>}
      {messageOf(error)}
    </div>
  );
}
