import { createHash } from 'node:crypto';
import type { RegistryCredentials } from './tool-home.js';

/**
 * The digests references resolved to lately, per account: a pull of the same reference with the
 * same account within `ttlMs` of the registry's answer skips asking it again (skopeo inspect is a
 * process of its own, some 20 ms, on the path of every job). The registry's answer is what lets an
 * account use a cached image, so an answer is kept for that account only (its user name and a hash
 * of its password: another account, or a changed password, asks again), and a tag moved or an
 * access revoked at the registry is seen within `ttlMs`. 0: the registry is asked at every pull.
 */
export class RecentDigests {
  private readonly answers = new Map<string, { digest: string; at: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The digest the registry gave this account for the reference, if it did within the TTL; and how long ago. */
  get(reference: string, credentials: RegistryCredentials | null): { digest: string; ageMs: number } | null {
    if (this.ttlMs <= 0) return null;
    const key = keyOf(reference, credentials);
    const answer = this.answers.get(key);
    if (!answer) return null;
    const ageMs = this.now() - answer.at;
    if (ageMs < 0 || ageMs >= this.ttlMs) {
      this.answers.delete(key);
      return null;
    }
    return { digest: answer.digest, ageMs };
  }

  set(reference: string, credentials: RegistryCredentials | null, digest: string): void {
    if (this.ttlMs <= 0) return;
    // Bounded: the oldest answers go first (a Map keeps insertion order).
    if (this.answers.size >= 10_000) this.answers.delete(this.answers.keys().next().value!);
    const key = keyOf(reference, credentials);
    this.answers.delete(key);
    this.answers.set(key, { digest, at: this.now() });
  }
}

function keyOf(reference: string, credentials: RegistryCredentials | null): string {
  if (!credentials) return `${reference}\0anonymous`;
  const secret = createHash('sha256').update(credentials.password).digest('hex');
  return `${reference}\0${credentials.username}\0${secret}`;
}
