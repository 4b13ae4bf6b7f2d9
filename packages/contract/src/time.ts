/** ISO-8601 UTC with a trailing Z, the only time format on the wire. */
export function isoNow(now: Date = new Date()): string {
  return now.toISOString();
}
