import type { ReactNode } from 'react';

/**
 * The bar above a log view: a status line (what is shown, and how current it is) and its buttons,
 * "Scroll to the end" first when the reader scrolled up (useStickToEnd).
 */
export function LogBar({
  status,
  stick,
  children,
}: {
  status: ReactNode;
  stick: { scrolledUp: boolean; toEnd(): void };
  children?: ReactNode;
}) {
  return (
    <div className="log-bar">
      <p role="status" className="log-status">
        {status}
      </p>
      <div className="actions">
        {stick.scrolledUp && (
          <button type="button" className="secondary" onClick={stick.toEnd}>
            Scroll to the end
          </button>
        )}
        {children}
      </div>
    </div>
  );
}
