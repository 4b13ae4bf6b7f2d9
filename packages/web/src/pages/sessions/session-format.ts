import type { InteractiveSession, SessionStatus } from '@runyard/client/core';

/** Statuses a session leaves by itself (its runner moves it on): pages refresh quickly while one is in them. */
export const MOVING: readonly SessionStatus[] = ['scheduled', 'initializing', 'setup', 'aborting'];
export const isMoving = (s: Pick<InteractiveSession, 'status'>) => MOVING.includes(s.status);
export const canPause = (s: Pick<InteractiveSession, 'status'>) => ['scheduled', 'initializing', 'setup', 'ready'].includes(s.status);
export const canResume = (s: Pick<InteractiveSession, 'status'>) => s.status === 'aborted';

/** The status as the CLI shows it: `ready` is running, `aborted` is paused. */
export function shownStatus(status: string): string {
  if (status === 'ready') return 'running';
  if (status === 'aborted') return 'paused';
  return status;
}

/** The kind of session by its backend (the API's `regular` is Jupyter). */
export const BACKENDS = [
  { value: 'regular', label: 'Jupyter' },
  { value: 'vscode', label: 'VS Code' },
  { value: 'rstudio', label: 'RStudio' },
  { value: 'spark', label: 'Spark' },
] as const;
export type Backend = (typeof BACKENDS)[number]['value'];
export const backendName = (backend: string) => BACKENDS.find((b) => b.value === backend)?.label ?? backend;

export const dollars = (n: number | undefined | null) => `$${(typeof n === 'number' && Number.isFinite(n) ? n : 0).toFixed(2)}`;
export const costLimit = (n: number) => (n < 0 ? 'none' : dollars(n));

/** A running time as `2h 05m`, `4m 10s`. */
export function duration(seconds: number | undefined | null): string {
  const s = Math.max(0, Math.round(seconds ?? 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h) return `${h}h ${String(m).padStart(2, '0')}m`;
  return `${m}m ${String(s % 60).padStart(2, '0')}s`;
}

export const ownerOf = (s: Pick<InteractiveSession, 'user'>) => [s.user.name, s.user.surname].filter(Boolean).join(' ') || s.user.email;
