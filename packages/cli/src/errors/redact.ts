import { maskSecret } from '../config/mask.js';

const secrets = new Set<string>();

/** Remembers a credential so that no error line can print it. */
export function rememberSecret(secret: string | undefined): void {
  if (secret && secret.length >= 4) secrets.add(secret);
}

/** The text with every remembered credential masked. */
export function redact(text: string): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join(maskSecret(s));
  return out;
}
