import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The versions the test Nextflow home holds: every version the client sends (NEXTFLOW_VERSIONS) and the fixture's default. */
export const FIXTURE_NEXTFLOW_VERSIONS = ['22.10.8', '22.11.1-edge', '23.10.1', '24.04.4', '25.04.8', '25.10.4'];

let home: string | undefined;

/**
 * A Nextflow home as an operator installs one (`NXF_HOME=<dir> NXF_VER=<v> nextflow -version`):
 * framework/<v>/nextflow-<v>-one.jar per version (placeholders: the fixture nextflow only looks for
 * them, as the launcher does), capsule/ and plugins/. One per test process, read-only to tasks.
 */
export function fixtureNextflowHome(): string {
  if (home) return home;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-nxf-home-'));
  for (const v of FIXTURE_NEXTFLOW_VERSIONS) {
    mkdirSync(path.join(dir, 'framework', v), { recursive: true });
    writeFileSync(path.join(dir, 'framework', v, `nextflow-${v}-one.jar`), 'fixture framework jar\n');
  }
  for (const d of ['capsule', 'plugins', 'tmp/ver']) mkdirSync(path.join(dir, d), { recursive: true });
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  home = dir;
  return dir;
}

/** The server setting that points Runyard at the fixture home. */
export function nextflowHomeEnv(): { RUNYARD_NEXTFLOW_HOME: string } {
  return { RUNYARD_NEXTFLOW_HOME: fixtureNextflowHome() };
}
