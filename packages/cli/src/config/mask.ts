/** A credential for display: stars, then its last 4 characters when it is long enough to spare them. */
export function maskSecret(secret: string): string {
  if (secret.length < 12) return '*'.repeat(Math.max(secret.length, 4));
  return '*'.repeat(Math.min(secret.length - 4, 16)) + secret.slice(-4);
}
