import { formatRunTime } from '@runyard/client/core';

/** The statuses after which a job never changes. */
const FINISHED = new Set(['completed', 'failed', 'aborted']);

export function isFinished(status: string): boolean {
  return FINISHED.has(status);
}

/** Dollars as `$0.1234` below a dollar (small jobs cost fractions of a cent) and `$12.34` above. */
export function formatUsd(dollars: number): string {
  if (!Number.isFinite(dollars)) return '—';
  return `$${dollars.toFixed(Math.abs(dollars) < 1 ? 4 : 2)}`;
}

/** A job's `computeCostSpent`, which the wire keeps in cents. */
export function formatCents(cents: unknown): string {
  const n = Number(cents);
  return cents === null || cents === undefined || !Number.isFinite(n) ? '—' : formatUsd(n / 100);
}

/** How long a job ran: start to end, or start to `now` while it runs; '—' before it starts. */
export function runTime(start: string | null, end: string | null, now: number): string {
  if (!start) return '—';
  return formatRunTime(start, end ?? new Date(now).toISOString()) ?? '—';
}
