import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

/**
 * Secrets kept in the database (a user's docker registry password) are sealed with AES-256-GCM
 * under the server's key: a file of 32 random bytes (RUNYARD_SECRET_KEY_FILE, by default
 * `<dataDir>/secret.key`, made 0600 on first use). Every process that reads the secrets needs the
 * same file. Sealed text: base64 of iv (12 bytes), tag (16), ciphertext.
 */
const KEY_BYTES = 32;
const keys = new Map<string, Buffer>();

function keyAt(file: string): Buffer {
  let key = keys.get(file);
  if (key) return key;
  try {
    key = readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    const fresh = randomBytes(KEY_BYTES);
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, fresh);
      } finally {
        closeSync(fd);
      }
      key = fresh;
    } catch (made) {
      // Another process made it first: use theirs.
      if ((made as NodeJS.ErrnoException).code !== 'EEXIST') throw made;
      key = readFileSync(file);
    }
  }
  if (key.length !== KEY_BYTES) throw new Error(`The secret key file ${file} does not hold ${KEY_BYTES} bytes.`);
  keys.set(file, key);
  return key;
}

export function seal(keyFile: string, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyAt(keyFile), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The text sealed with the key; throws when it was sealed with another key or altered. */
export function unseal(keyFile: string, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyAt(keyFile), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * A key of its own for one purpose (e.g. signing the tokens of the session proxy), derived from
 * the server's key with HKDF-SHA256: the server's key never serves two purposes, and every
 * process that has the key file derives the same one.
 */
export function derivedKey(keyFile: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', keyAt(keyFile), Buffer.alloc(0), `runyard:${purpose}`, KEY_BYTES));
}
