import type { Config } from '../config.js';
import { installedNextflowVersions, type NextflowHomeSettings } from '../engines/nextflow-home.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';

/** The launcher's own check of NXF_VER ("Not a valid Nextflow version"). */
const VERSION = /^[0-9]+\.[0-9]+\.[0-9][0-9A-Za-z.-]*$/;

function listed(versions: string[]): string {
  return versions.length ? `installed: ${versions.join(', ')}` : 'none is installed';
}

/**
 * The Nextflow version a job runs with, which its document shows. Offline, the launcher fails on a
 * version that is not in its home (it would download it), so a requested version must be installed
 * unless downloads are allowed (RUNYARD_NEXTFLOW_DOWNLOAD); otherwise 400, listing the installed
 * ones. Without a request: `fallback` when it is installed (or may be downloaded), else the newest
 * installed version.
 */
export function nextflowVersionFor(
  config: Pick<Config, keyof NextflowHomeSettings>,
  requested: string | undefined,
  fallback: string,
): string {
  const installed = installedNextflowVersions(config);
  const wanted = requested ?? fallback;
  if (installed.includes(wanted)) return wanted;
  if (config.nextflowDownload) {
    if (!VERSION.test(wanted)) throw new AppError('VALIDATION_FAILED', `nextflowVersion: ${quoted(wanted)} is not a Nextflow version.`);
    return wanted;
  }
  if (requested === undefined && installed.length) return installed[installed.length - 1];
  const subject = requested === undefined ? `the default Nextflow version ${fallback}` : `Nextflow ${quoted(wanted)}`;
  throw new AppError(
    'VALIDATION_FAILED',
    `nextflowVersion: ${subject} is not installed on this server (${listed(installed)}); the operator installs versions in the Nextflow home (RUNYARD_NEXTFLOW_HOME).`,
  );
}
