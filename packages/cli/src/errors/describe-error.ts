import { loadSdk } from '../sdk.js';
import { CliError } from './cli-error.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { redact } from './redact.js';

export interface ErrorReport {
  /** One line for stderr, without the `Error: ` prefix; credentials masked. */
  message: string;
  exitCode: ExitCode;
}

const TLS_PROBLEM = /certificate|self[- ]signed|SSL|TLS|CERT_/i;
/** Nothing listens at the address: most often the server has not been started yet. */
const REFUSED = /ECONNREFUSED/;

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** Turns anything a command threw into one line and an exit code (never a stack trace). */
export async function describeError(e: unknown): Promise<ErrorReport> {
  if (e instanceof CliError) return { message: redact(e.message), exitCode: e.exitCode };
  const sdk = await loadSdk();
  if (e instanceof sdk.AuthenticationError) {
    return {
      message: redact(`Authentication failed: ${e.serverMessage} Check the API key (--apikey, RUNYARD_APIKEY or the profile).`),
      exitCode: EXIT.AUTH,
    };
  }
  if (e instanceof sdk.ApiError) return { message: redact(`${e.serverMessage} (HTTP ${e.status})`), exitCode: EXIT.ERROR };
  if (e instanceof sdk.TransportError) {
    const hint = REFUSED.test(e.message)
      ? ' Is the server running? Start one with "runyard server start" (or check --platform-url).'
      : TLS_PROBLEM.test(e.message)
        ? ' Use --ssl-cert <CA file> to trust the certificate, or --disable-ssl-verification.'
        : '';
    return { message: redact(sentence(e.message) + hint), exitCode: EXIT.ERROR };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { message: redact(message || 'unexpected failure'), exitCode: EXIT.ERROR };
}
