import path from 'node:path';

/** `~/.runyard/`, where profiles live. */
export function runyardDir(home: string): string {
  return path.join(home, '.runyard');
}

/** INI, one section per profile holding `apikey`; mode 600. */
export function credentialsFile(home: string): string {
  return path.join(runyardDir(home), 'credentials');
}

/** INI, one section per profile with the other settings and `default = True|False`. */
export function configFile(home: string): string {
  return path.join(runyardDir(home), 'config');
}
