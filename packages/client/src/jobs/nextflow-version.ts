// Which Nextflow version a job runs with (wire reference §4.1, `--nextflow-version` resolution).
import { RunyardValueError } from '../errors.js';
import { EXECUTION_PLATFORMS, type ExecutionPlatform } from './job-types.js';

/** The versions each platform accepts. */
export const NEXTFLOW_VERSIONS: Readonly<Record<ExecutionPlatform, readonly string[]>> = {
  aws: ['22.10.8', '24.04.4', '25.04.8', '25.10.4'],
  azure: ['22.11.1-edge'],
  hpc: ['22.10.8'],
};

/** What `latest` means on each platform. */
export const LATEST_NEXTFLOW_VERSION: Readonly<Record<ExecutionPlatform, string>> = {
  aws: '25.10.4',
  azure: '22.11.1-edge',
  hpc: '22.10.8',
};

/** The only version platform modules run with on aws (and hpc); on azure they use the azure version. */
export const MODULE_NEXTFLOW_VERSION = '22.10.8';
/** The default for user-imported workflows on aws. */
export const USER_WORKFLOW_NEXTFLOW_VERSION = '24.04.4';

function checkPlatform(platform: string): asserts platform is ExecutionPlatform {
  if (!(EXECUTION_PLATFORMS as readonly string[]).includes(platform)) {
    throw new RunyardValueError(`Unknown execution platform '${platform}'; use one of ${EXECUTION_PLATFORMS.join(', ')}.`);
  }
}

/** The version used when none is requested: azure 22.11.1-edge, hpc 22.10.8, aws modules 22.10.8, other aws workflows 24.04.4. */
export function defaultNextflowVersion(platform: ExecutionPlatform, isModule: boolean): string {
  checkPlatform(platform);
  if (platform === 'aws') return isModule ? MODULE_NEXTFLOW_VERSION : USER_WORKFLOW_NEXTFLOW_VERSION;
  return LATEST_NEXTFLOW_VERSION[platform];
}

export interface NextflowVersionRequest {
  /** The `--nextflow-version` value; none means the platform's default. `latest` is allowed. */
  requested?: string | null;
  platform: ExecutionPlatform;
  isModule?: boolean;
  /** Named in the warning when a module is switched to its version. */
  workflowName?: string;
}

export interface ResolvedNextflowVersion {
  version: string;
  /** Why the requested version was replaced (module or azure switch). */
  warnings: string[];
}

/**
 * Resolves `--nextflow-version`: default per platform and module, `latest` per platform, modules forced to
 * their version, then checked against the platform's list: on aws and hpc an unknown version is a
 * RunyardValueError, on azure it is switched to 22.11.1-edge with a warning.
 */
export function resolveNextflowVersion(request: NextflowVersionRequest): ResolvedNextflowVersion {
  const { platform, isModule = false, workflowName } = request;
  checkPlatform(platform);
  const warnings: string[] = [];
  let version = request.requested || defaultNextflowVersion(platform, isModule);
  if (version === 'latest') version = LATEST_NEXTFLOW_VERSION[platform];

  if (isModule) {
    const forced = platform === 'azure' ? LATEST_NEXTFLOW_VERSION.azure : MODULE_NEXTFLOW_VERSION;
    if (version !== forced) {
      const which = workflowName ? ` '${workflowName}'` : '';
      warnings.push(
        `The workflow${which} is a platform module, which only runs with Nextflow ${forced}; switching from ${version} to ${forced}.`,
      );
      version = forced;
    }
  }

  const allowed = NEXTFLOW_VERSIONS[platform];
  if (!allowed.includes(version)) {
    if (platform !== 'azure') {
      throw new RunyardValueError(
        `Unsupported Nextflow version '${version}' for the ${platform} execution platform. Supported versions are: ${allowed.join(', ')}.`,
      );
    }
    warnings.push(
      `Nextflow version '${version}' is not supported on azure, which only supports ${allowed.join(', ')}; switching to ${allowed[0]}.`,
    );
    version = allowed[0];
  }
  return { version, warnings };
}
