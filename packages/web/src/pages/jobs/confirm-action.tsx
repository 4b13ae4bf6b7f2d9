import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ConfirmStep } from '../../components/confirm-step';

interface Props {
  label: string;
  confirmLabel: string;
  question: ReactNode;
  busy: boolean;
  onConfirm(): void;
}

/**
 * A destructive action of the job page: a button, then the question in the page (ConfirmStep: the
 * confirming button takes the focus, so keyboards and tests answer it; no window.confirm). Focus
 * comes back to the button once answered.
 */
export function ConfirmAction({ label, confirmLabel, question, busy, onConfirm }: Props) {
  const [asking, setAsking] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  useEffect(() => {
    if (!asking && asked.current) trigger.current?.focus();
    asked.current = asking;
  }, [asking]);

  if (asking) {
    return (
      <div className="jobs-confirm">
        <ConfirmStep
          question={question}
          confirmLabel={confirmLabel}
          busy={busy}
          onConfirm={() => {
            setAsking(false);
            onConfirm();
          }}
          onCancel={() => setAsking(false)}
        />
      </div>
    );
  }
  return (
    <button ref={trigger} type="button" className="secondary" disabled={busy} onClick={() => setAsking(true)}>
      {label}
    </button>
  );
}
