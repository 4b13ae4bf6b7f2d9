import { ERROR_CODES, type ErrorCode } from '@runyard/contract';

/** An expected failure: a code from the contract's registry, its status, and a message for people. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
  ) {
    super(message ?? ERROR_CODES[code].message);
    this.status = ERROR_CODES[code].status;
  }
}
