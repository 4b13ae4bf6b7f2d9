import type { InteractiveSession } from '@runyard/client/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { ErrorNotice } from '../../components/error-notice';
import { ConfirmStep } from '../../components/confirm-step';
import { canPause, canResume } from './session-format';
import { sessionsKey } from './use-sessions';

/**
 * Open, pause and resume one session. Open asks for a one-minute launch link (a path on this
 * server: the session proxy) and opens it in a new tab; pause asks first, with the choice of
 * saving the home directory (the CLI's `--no-upload`).
 */
export function SessionActions({ session, onChanged }: { session: InteractiveSession; onChanged?(message: string): void }) {
  const api = useApi();
  const qc = useQueryClient();
  const { workspaceId, role } = useWorkspace();
  const saveId = useId();
  const [confirming, setConfirming] = useState(false);
  const [saveHome, setSaveHome] = useState(true);
  const [link, setLink] = useState<string | null>(null);
  const done = (message: string) => {
    onChanged?.(message);
    void qc.invalidateQueries({ queryKey: sessionsKey(workspaceId) });
  };
  // The tab is opened in the click itself (a tab opened after the request may be taken for a
  // pop-up once the click's activation has lapsed), then sent to the link, without a way back to this page.
  const open = useMutation({
    mutationFn: (_tab: Window | null) => api.getInteractiveSessionUiLink(session._id, workspaceId),
    onSuccess: (l, tab) => {
      const url = new URL(l.url, window.location.origin).href;
      setLink(url);
      if (tab) {
        tab.opener = null;
        tab.location.href = url;
      }
    },
    onError: (_e, tab) => tab?.close(),
  });
  const pause = useMutation({
    mutationFn: (upload: boolean) => api.abortInteractiveSession(session._id, workspaceId, upload, false),
    onSuccess: (_s, upload) => {
      setConfirming(false);
      done(`Pausing "${session.name}"${upload ? ', saving its home first' : ' without saving its home'}.`);
    },
  });
  const resume = useMutation({
    mutationFn: () => api.resumeInteractiveSession(session._id, workspaceId),
    onSuccess: () => done(`Resumed "${session.name}": it starts again from its last save.`),
  });
  if (role === 'viewer') return null;
  const error = open.error ?? pause.error ?? resume.error;

  return (
    <div className="session-actions">
      <div className="row-actions">
        {session.status === 'ready' && (
          <button
            type="button"
            disabled={open.isPending}
            aria-label={`Open ${session.name}`}
            onClick={() => open.mutate(window.open('about:blank', '_blank'))}
          >
            {open.isPending ? 'Opening…' : 'Open'}
          </button>
        )}
        {canPause(session) && !confirming && (
          <button type="button" className="secondary" aria-label={`Pause ${session.name}`} onClick={() => setConfirming(true)}>
            Pause
          </button>
        )}
        {canResume(session) && (
          <button
            type="button"
            className="secondary"
            disabled={resume.isPending}
            aria-label={`Resume ${session.name}`}
            onClick={() => resume.mutate()}
          >
            {resume.isPending ? 'Resuming…' : 'Resume'}
          </button>
        )}
      </div>
      {link && session.status === 'ready' && (
        <p className="muted">
          If no tab opened:{' '}
          <a href={link} target="_blank" rel="noopener noreferrer">
            open {session.name}
          </a>{' '}
          (the link works once, within a minute).
        </p>
      )}
      {confirming && canPause(session) && (
        <ConfirmStep
          question={`Pause the session "${session.name}"? Its server stops; resume it later to go on.`}
          confirmLabel="Yes, pause"
          busy={pause.isPending}
          onConfirm={() => pause.mutate(saveHome)}
          onCancel={() => setConfirming(false)}
        >
          <p>
            <input id={saveId} type="checkbox" checked={saveHome} onChange={(e) => setSaveHome(e.target.checked)} />{' '}
            <label htmlFor={saveId}>Save the home directory first (the next run starts from it)</label>
          </p>
        </ConfirmStep>
      )}
      {error && <ErrorNotice error={error} title="Not done" />}
    </div>
  );
}
