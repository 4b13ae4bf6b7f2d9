import { ERROR_CODES, type ErrorCode } from '@runyard/contract';

/**
 * An expected failure: a code from the contract's registry, its status, and a message for people;
 * headers, where the status asks for one (416: Content-Range).
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? ERROR_CODES[code].message);
    this.status = ERROR_CODES[code].status;
  }
}
