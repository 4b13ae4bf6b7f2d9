import { FetchTransport, RunyardApi } from '@runyard/client/core';

/**
 * The SDK over fetch, on this page's origin: the session cookie authenticates (it is HttpOnly: the
 * page never sees it, nor an API key), and writes carry the CSRF token the sign-in returned.
 */
export function makeApi(csrfToken: () => string | undefined): RunyardApi {
  return new RunyardApi(new FetchTransport({ csrfToken }));
}

export type { RunyardApi };
