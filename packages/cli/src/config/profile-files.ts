import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatIni, parseIni, type IniDocument } from './ini.js';
import { configFile, credentialsFile, runyardDir } from './paths.js';
import { PROFILE_FIELDS, type ProfileValues } from './profile-fields.js';
import { ProfileSet, type Profile } from './profile-set.js';

function readIni(file: string): IniDocument {
  try {
    return parseIni(readFileSync(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw e;
  }
}

const KNOWN_CONFIG_KEYS = new Set(['default', ...PROFILE_FIELDS.flatMap((f) => [f.ini, ...(f.iniAliases ?? [])])]);

/** Reads `~/.runyard/config` and `~/.runyard/credentials` (a missing file is an empty one). */
export function loadProfiles(home: string): ProfileSet {
  const config = readIni(configFile(home));
  const credentials = readIni(credentialsFile(home));
  const names = [...config.keys(), ...[...credentials.keys()].filter((n) => !config.has(n))];
  const profiles: Profile[] = names.map((name) => {
    const conf = config.get(name) ?? new Map<string, string>();
    const cred = credentials.get(name) ?? new Map<string, string>();
    const values: ProfileValues = {};
    for (const f of PROFILE_FIELDS) {
      const source = f.file === 'credentials' ? cred : conf;
      const v = [f.ini, ...(f.iniAliases ?? [])].map((k) => source.get(k)).find((x) => x !== undefined && x !== '');
      if (v !== undefined) values[f.key] = v;
    }
    const extra = new Map([...conf].filter(([k]) => !KNOWN_CONFIG_KEYS.has(k)));
    return { name, values, isDefault: (conf.get('default') ?? '').toLowerCase() === 'true', extra };
  });
  return new ProfileSet(profiles);
}

/** Writes a file readable by its owner only, replacing the old one in one step. */
function writePrivate(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** Writes both files (mode 600, in a directory of mode 700); keys are written only when they have a value. */
export function saveProfiles(home: string, set: ProfileSet): void {
  mkdirSync(runyardDir(home), { recursive: true, mode: 0o700 });
  const config: IniDocument = new Map();
  const credentials: IniDocument = new Map();
  for (const p of set.all) {
    const conf = new Map<string, string>();
    const cred = new Map<string, string>();
    for (const f of PROFILE_FIELDS) {
      const v = p.values[f.key];
      if (v !== undefined && v !== '') (f.file === 'credentials' ? cred : conf).set(f.ini, v);
    }
    for (const [k, v] of p.extra) conf.set(k, v);
    conf.set('default', p.isDefault ? 'True' : 'False');
    config.set(p.name, conf);
    credentials.set(p.name, cred);
  }
  writePrivate(credentialsFile(home), formatIni(credentials));
  writePrivate(configFile(home), formatIni(config));
}
