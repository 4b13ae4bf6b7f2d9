import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * The second step of a destructive action, inside the page (not window.confirm): the question and
 * two buttons; focus moves to the confirming button so a keyboard user answers at once.
 */
export function ConfirmStep({
  question,
  confirmLabel,
  busy,
  onConfirm,
  onCancel,
  children,
}: {
  question: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
  children?: ReactNode;
}) {
  const confirm = useRef<HTMLButtonElement>(null);
  const questionId = useId();
  useEffect(() => confirm.current?.focus(), []);
  return (
    <div className="confirm-step" role="group" aria-labelledby={questionId}>
      <p id={questionId}>{question}</p>
      {children}
      <div className="actions">
        <button ref={confirm} type="button" className="danger" disabled={busy} onClick={onConfirm}>
          {busy ? 'Working…' : confirmLabel}
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
