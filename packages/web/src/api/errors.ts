/** The HTTP status of an SDK error (ApiError carries `status`), or undefined for a network failure. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** What to show a person for a failed request: the server's message (it says what was wrong). */
export function messageOf(error: unknown): string {
  // An ApiError keeps the server's own words apart from the SDK's "Server returned status N" prefix.
  const serverMessage = (error as { serverMessage?: unknown } | null)?.serverMessage;
  if (typeof serverMessage === 'string' && serverMessage) return serverMessage;
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong.';
}

/** Retry network failures and 5xx a few times; a 4xx answer will not change by asking again. */
export function shouldRetry(failures: number, error: unknown): boolean {
  const status = statusOf(error);
  return failures < 2 && (status === undefined || status >= 500);
}
