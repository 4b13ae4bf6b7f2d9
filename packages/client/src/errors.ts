/** Base of every error the SDK throws. */
export class RunyardError extends Error {
  override name = 'RunyardError';
}

/**
 * A client-side rule was broken or a lookup found nothing (the seed contract's ValueError):
 * a name that matches no project, a page size out of range, a malformed parameter.
 */
export class RunyardValueError extends RunyardError {
  override name = 'RunyardValueError';
}

/** The server could not be reached, or TLS verification failed. */
export class TransportError extends RunyardError {
  override name = 'TransportError';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** The server answered with status >= 400 (the seed contract's BadRequestException). */
export class ApiError extends RunyardError {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly serverMessage: string,
    readonly method: string,
    readonly path: string,
  ) {
    super(`Server returned status ${status}. Message: ${serverMessage}`);
  }
}

export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
}
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}

/** The typed error for a status: known statuses get their own class, the rest the base class. */
export function apiErrorFor(status: number, code: string | undefined, message: string, method: string, path: string): ApiError {
  const Cls = { 401: AuthenticationError, 403: ForbiddenError, 404: NotFoundError, 409: ConflictError }[status] ?? ApiError;
  return new Cls(status, code, message, method, path);
}
