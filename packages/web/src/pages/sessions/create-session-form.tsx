import type { SessionCreateBody } from '@runyard/client/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { paths } from '../../app/paths';
import { ErrorNotice } from '../../components/error-notice';
import { ProjectSelect } from '../projects/project-select';
import { BACKENDS, dollars, type Backend } from './session-format';
import { sessionsKey } from './use-sessions';
import { firstType, fitText } from '../jobs/instance-type-select';

/** Auto-shutdown choices, hours from now (0: never); 12 h is the CLI's default. */
const SHUTDOWN_HOURS = [0, 1, 4, 8, 12, 24, 72];

interface Fields {
  name: string;
  projectId: string;
  backend: Backend;
  instanceType: string;
  costLimit: string;
  shutdownHours: number;
  shared: boolean;
  /** Runyard's own: the container image a Jupyter session runs in; empty: the server's Jupyter. */
  image: string;
}

/** The create body as `runyard interactive-session create` builds it (cloudos-cli's build_session_payload). */
function bodyOf(f: Fields, provider: string | undefined): SessionCreateBody {
  const limit = f.costLimit.trim() === '' ? -1 : Number(f.costLimit);
  return {
    interactiveSessionConfiguration: {
      name: f.name.trim(),
      backend: f.backend,
      executionPlatform: provider === 'azure' ? 'azure' : 'aws',
      ...(f.instanceType && { instanceType: f.instanceType }),
      isCostSaving: false,
      storageMode: 'regular',
      visibility: f.shared ? 'workspace' : 'private',
      execution: {
        computeCostLimit: limit,
        autoShutdownAtDate: f.shutdownHours ? new Date(Date.now() + f.shutdownHours * 3_600_000).toISOString() : null,
      },
      ...(f.backend === 'rstudio' && { rVersion: '4.5.2' }),
      ...(f.backend === 'regular' && f.image.trim() && { image: f.image.trim() }),
    },
    dataItems: [],
    fileSystemIds: [],
    fuseFileSystems: [],
    projectId: f.projectId,
  };
}

/** A new session; the server says when a backend does not run here (only Jupyter needs no operator's command). */
export function CreateSessionForm() {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { workspaceId } = useWorkspace();
  const catalogue = useQuery({
    queryKey: ['instance-types', workspaceId],
    queryFn: () => api.getInstanceTypes(workspaceId),
    staleTime: 300_000,
  });
  const [fields, setFields] = useState<Fields>({
    name: '',
    projectId: '',
    backend: 'regular',
    instanceType: '',
    costLimit: '',
    shutdownHours: 12,
    shared: false,
    image: '',
  });
  const set = <K extends keyof Fields>(key: K, value: Fields[K]) => setFields((f) => ({ ...f, [key]: value }));
  const instanceType = firstType(fields.instanceType, catalogue.data);
  const chosen = catalogue.data?.instanceTypes.find((t) => t.name === instanceType);
  const create = useMutation({
    mutationFn: () => api.createInteractiveSession(workspaceId, bodyOf({ ...fields, instanceType }, chosen?.provider)),
    onSuccess: (session) => {
      void qc.invalidateQueries({ queryKey: sessionsKey(workspaceId) });
      navigate(paths.session(session._id));
    },
  });
  const limitInvalid = fields.costLimit.trim() !== '' && !(Number(fields.costLimit) >= 0);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!limitInvalid) create.mutate();
  };

  return (
    <form className="card" onSubmit={submit} aria-labelledby="create-session-title">
      <h2 id="create-session-title">New session</h2>
      <div className="form-grid">
        <label htmlFor="session-name">Session name</label>
        <input id="session-name" required maxLength={100} value={fields.name} onChange={(e) => set('name', e.target.value)} />
        <ProjectSelect id="session-project" required value={fields.projectId} onChange={(id) => set('projectId', id)} />
        <label htmlFor="session-backend">Application</label>
        <select id="session-backend" value={fields.backend} onChange={(e) => set('backend', e.target.value as Backend)}>
          {BACKENDS.map((b) => (
            <option key={b.value} value={b.value}>
              {b.label}
            </option>
          ))}
        </select>
        {fields.backend === 'regular' && (
          <>
            <label htmlFor="session-image">Container image</label>
            <div>
              <input
                id="session-image"
                maxLength={512}
                placeholder="the server's Jupyter"
                aria-describedby="session-image-help"
                value={fields.image}
                onChange={(e) => set('image', e.target.value)}
              />
              <p id="session-image-help" className="muted">
                Optional: a Jupyter image with your own libraries (e.g. ghcr.io/lab/notebook:1), pulled with your linked registry account.
                It needs jupyter on its PATH.
              </p>
            </div>
          </>
        )}
        <label htmlFor="session-instance">Instance type</label>
        <div>
          <select
            id="session-instance"
            value={instanceType}
            onChange={(e) => set('instanceType', e.target.value)}
            disabled={!catalogue.data}
          >
            {!catalogue.data && <option value="">Loading instance types…</option>}
            {catalogue.data?.instanceTypes.map((t) => (
              <option key={t.name} value={t.name} disabled={catalogue.data?.localExecutor?.fit[t.name] === 'refused'}>
                {t.name}: {t.vcpus} vCPU, {t.memoryGiB} GiB, {dollars(t.pricePerHourUsd)}/h{fitText(t, catalogue.data?.localExecutor)}
              </option>
            ))}
          </select>
          {catalogue.isError && <ErrorNotice error={catalogue.error} title="Instance types" />}
        </div>
        <label htmlFor="session-cost-limit">Cost limit (USD)</label>
        <div>
          <input
            id="session-cost-limit"
            type="number"
            min={0}
            step="0.01"
            inputMode="decimal"
            placeholder="no limit"
            aria-describedby="session-cost-limit-help"
            aria-invalid={limitInvalid}
            value={fields.costLimit}
            onChange={(e) => set('costLimit', e.target.value)}
          />
          <p id="session-cost-limit-help" className="muted">
            The session is paused, its home saved, once it has cost this much. Empty: no limit.
          </p>
        </div>
        <label htmlFor="session-shutdown">Stop automatically</label>
        <select id="session-shutdown" value={fields.shutdownHours} onChange={(e) => set('shutdownHours', Number(e.target.value))}>
          {SHUTDOWN_HOURS.map((h) => (
            <option key={h} value={h}>
              {h ? `after ${h} hour${h > 1 ? 's' : ''}` : 'never'}
            </option>
          ))}
        </select>
        <span />
        <div>
          <input id="session-shared" type="checkbox" checked={fields.shared} onChange={(e) => set('shared', e.target.checked)} />{' '}
          <label htmlFor="session-shared">Visible to every member of the workspace</label>
        </div>
      </div>
      {create.isError && <ErrorNotice error={create.error} title="Session not created" />}
      <div className="actions">
        <button type="submit" disabled={create.isPending || !fields.name.trim() || !fields.projectId || limitInvalid}>
          {create.isPending ? 'Creating…' : 'Create session'}
        </button>
      </div>
    </form>
  );
}
