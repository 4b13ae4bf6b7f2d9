import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config.js';

export type NextflowHomeSettings = Pick<Config, 'dataDir' | 'nextflowHome' | 'nextflowVersions' | 'nextflowDownload'>;

/** The operator's Nextflow home: RUNYARD_NEXTFLOW_HOME, else ~/.nextflow of the server's user when it exists, else <dataDir>/nextflow-home. */
export function nextflowHomeOf(config: NextflowHomeSettings, userHome: string = os.homedir()): string {
  if (config.nextflowHome) return path.resolve(config.nextflowHome);
  const own = path.join(userHome, '.nextflow');
  return existsSync(own) ? own : path.join(config.dataDir, 'nextflow-home');
}

/** Where the launcher keeps a version (its NXF_DIST/NXF_VER/nextflow-NXF_VER-one.jar, NXF_DIST being $NXF_HOME/framework). */
export function frameworkJarOf(home: string, version: string): string {
  return path.join(home, 'framework', version, `nextflow-${version}-one.jar`);
}

/** Orders versions as Nextflow numbers them: year.month.patch, a suffixed one (-edge) before the release of the same number. */
export function compareNextflowVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[.-]/);
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) {
    const d = (Number(pa[i]) || 0) - (Number(pb[i]) || 0);
    if (d) return d;
  }
  if (pa.length !== pb.length) return pb.length - pa.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The installed versions, oldest first: RUNYARD_NEXTFLOW_VERSIONS, else those whose framework jar is in the home. */
export function installedNextflowVersions(config: NextflowHomeSettings): string[] {
  if (config.nextflowVersions.length) return [...config.nextflowVersions].sort(compareNextflowVersions);
  const home = nextflowHomeOf(config);
  let names: string[];
  try {
    names = readdirSync(path.join(home, 'framework'));
  } catch {
    return [];
  }
  return names.filter((v) => existsSync(frameworkJarOf(home, v))).sort(compareNextflowVersions);
}

/** What a task needs of a Nextflow home: its environment, and what the sandbox shows it. */
export interface NextflowHomeMount {
  env: Record<string, string>;
  readable: string[];
  writable: string[];
}

/**
 * The Nextflow home of a job's task. An installed version runs from the operator's home, of which
 * the task sees read-only only what the launcher and Nextflow read (framework jars, the capsule's
 * dependencies, plugins, the launcher's Java version cache): never its config, scm or secrets, which
 * may hold credentials. What they write goes to the job's own work directory: the launcher's
 * classpath cache (NXF_LAUNCHER, else "Maybe NXF_HOME is not writable?"), the secrets store
 * (NXF_SECRETS_FILE, whose directory Nextflow makes at every run) and, when the home has no plugins
 * directory, the plugins (Nextflow creates NXF_PLUGINS_DIR at start).
 *
 * A version that is not installed, when downloads are allowed, runs from a home of the job's
 * workspace that the task may write, since the launcher downloads the framework, its dependencies
 * and plugins into NXF_HOME. This is the one home that jobs share writably, and unavoidably so: a
 * home per job would download hundreds of megabytes for every run. Sharing it only within a
 * workspace keeps a planted jar from reaching any job but those of members who share its data.
 */
export function nextflowHomeFor(
  config: NextflowHomeSettings,
  workspaceId: string,
  version: string | null,
  workDir: string,
): NextflowHomeMount {
  const home = nextflowHomeOf(config);
  const installed = !version || installedNextflowVersions(config).includes(version);
  if (!installed && config.nextflowDownload) {
    const downloads = path.join(config.dataDir, 'nextflow-downloads', workspaceId);
    mkdirSync(downloads, { recursive: true, mode: 0o700 });
    return { env: { NXF_HOME: downloads }, readable: [], writable: [downloads] };
  }
  // The server's own home is made here, so that an operator finds where to install versions.
  if (home === path.join(config.dataDir, 'nextflow-home')) mkdirSync(home, { recursive: true, mode: 0o700 });
  const own = path.join(workDir, '.nextflow');
  // Nextflow (22.10+) opens its local secrets store at every run and makes its directory, by default
  // the home's secrets/, which the task neither sees nor may write (LocalSecretsProvider.makeStoreFile):
  // the job gets a store of its own, empty.
  const env: Record<string, string> = {
    NXF_HOME: home,
    NXF_LAUNCHER: path.join(own, 'launcher'),
    NXF_SECRETS_FILE: path.join(own, 'secrets', 'store.json'),
  };
  const readable = ['framework', 'capsule', 'plugins', path.join('tmp', 'ver')].map((d) => path.join(home, d));
  if (!existsSync(path.join(home, 'plugins'))) env.NXF_PLUGINS_DIR = path.join(own, 'plugins');
  return { env, readable, writable: [] };
}
