import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';

// The data directory holds the database, the first admin's key and job data: its owner's only.
// Modes are set with chmod too: mkdir and open apply the umask, whatever mode they are given.

/** Creates the directory (and missing parents) with mode 700; an existing one is left as it is. */
export function makePrivateDir(dir: string): void {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** Creates the file empty if missing; it and its SQLite companions (-wal, -shm; older starts may have left them wider) get mode 600. */
export function makePrivateDatabaseFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}
