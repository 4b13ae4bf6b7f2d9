import { useId, useRef, useState } from 'react';

/**
 * A secret shown in a read-only field with a Copy button (the clipboard API where the page may use
 * it, else the field's selection and the browser's copy command); `warning` says how long it is shown.
 */
export function SecretField({ label, value, warning }: { label: string; value: string; warning: string }) {
  const id = useId();
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'' | 'copied' | 'failed'>('');

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('copied');
    } catch {
      field.current?.select();
      setCopied(document.execCommand('copy') ? 'copied' : 'failed');
    }
  }

  return (
    <div className="admin-secret">
      <label htmlFor={id}>{label}</label>
      <div className="admin-secret-row">
        <input
          ref={field}
          id={id}
          className="mono"
          readOnly
          value={value}
          spellCheck={false}
          autoComplete="off"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" className="secondary" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p className="admin-secret-warning" role="alert">
        {warning}
      </p>
      <p className="admin-status" role="status">
        {copied === 'copied' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Could not copy: select the text and copy it.' : ''}
      </p>
    </div>
  );
}
