// The parts of clone and resume that need no server (wire reference §2.4 steps 1, 3, 5, 6, 7 and 8):
// the caller reads the original request payload, resolves names to ids, and posts the result.
import { RunyardValueError } from '../errors.js';
import { classifyParameterValue, prefixOf, stripDashes, type JobParameter } from './parameters.js';
import { LATEST_NEXTFLOW_VERSION } from './nextflow-version.js';
import type { ExecutionPlatform } from './job-types.js';

/** A parameter entry of a stored payload: one of ours, or an older kind passed through. */
type PayloadParameter = Record<string, unknown>;

export interface CloneOverrides {
  mode: 'clone' | 'resume';
  /** Resume: the original job's `resumeWorkDir` (read from the job document). */
  resumeWorkDir?: string;
  jobName?: string;
  costLimit?: number;
  instanceType?: string;
  nextflowVersion?: string;
  /** A branch already checked to exist; the revision becomes that branch. */
  branch?: string;
  profile?: string;
  doNotSaveLogs?: boolean;
  useFusion?: boolean;
  accelerateSavingResults?: boolean;
  /** Clone only. */
  resumable?: boolean;
  /** The id of the queue named by `--job-queue`. */
  jobQueueId?: string;
  /** The id of the project named by `--project-name`. */
  projectId?: string;
  /**
   * `name=value` strings (`-p`), or parameters the caller already resolved (a File Explorer path
   * replacing a file or glob parameter needs the server). Applied in order with `overrideParameter`.
   */
  parameters?: Array<string | JobParameter>;
}

export interface ClonedPayload {
  payload: Record<string, unknown>;
  /** Overrides that do not apply to this job and were ignored. */
  warnings: string[];
}

function isStorageUrl(value: string): boolean {
  return value.startsWith('s3://') || value.startsWith('az://');
}

/** Whether overriding `name` with this text needs a File Explorer lookup first (see `overrideParameter`). */
export function overrideNeedsResolution(parameters: PayloadParameter[], name: string, value: string): boolean {
  const existing = parameters.find((p) => p.name === stripDashes(name));
  if (!existing || isStorageUrl(value)) return false;
  if (existing.parameterKind === 'arrayFileColumn') return true;
  if (existing.parameterKind !== 'dataItem' && existing.parameterKind !== 'globPattern') return false;
  return classifyParameterValue(value).kind !== 'textValue';
}

/**
 * Applies one `-p` override to a payload's parameter list, in place. Returns true if a parameter of that
 * name (leading dashes ignored) was found, false if it was appended as a new `textValue` whose prefix is the
 * dashes given. A text value replaces a `textValue`; on a `dataItem` or `globPattern`, an `s3://` or `az://`
 * URL or plain text turns it into a `textValue`, while a File Explorer path must be passed already resolved
 * (a parameter object, which replaces the entry and keeps its prefix).
 */
export function overrideParameter(parameters: PayloadParameter[], name: string, value: string | JobParameter): boolean {
  const bareName = stripDashes(name);
  const index = parameters.findIndex((p) => p.name === bareName);
  if (index < 0) {
    parameters.push(
      typeof value === 'string' ? { prefix: prefixOf(name), name: bareName, parameterKind: 'textValue', textValue: value } : { ...value },
    );
    return false;
  }
  const existing = parameters[index];
  if (typeof value !== 'string') {
    parameters[index] = { ...value, prefix: existing.prefix ?? value.prefix, name: bareName };
    return true;
  }
  if (overrideNeedsResolution(parameters, bareName, value)) {
    throw new RunyardValueError(
      `Parameter '${bareName}' is a ${String(existing.parameterKind)} parameter; the new value '${value}' must be resolved in the File Explorer first.`,
    );
  }
  const asText: PayloadParameter = { ...existing, parameterKind: 'textValue', textValue: value };
  for (const key of ['dataItem', 'globPattern', 'folder']) delete asText[key];
  parameters[index] = asText;
  return true;
}

/** `revision` of a job document with its `revisionType` taken from whichever of digest, tag, branch or commit is set. */
export function inferRevision(revision: Record<string, unknown>): Record<string, unknown> {
  const type = ['digest', 'tag', 'branch', 'commit'].find((k) => typeof revision[k] === 'string' && revision[k] !== '');
  return type ? { ...revision, revisionType: type } : { ...revision };
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * A copy of a job's request payload with `_id` and `resourceId` removed and the overrides of clone or resume
 * applied, in the reference client's order. The input is not changed. Send it through `fixBooleanStrings`.
 */
export function applyCloneOverrides(original: Record<string, unknown>, overrides: CloneOverrides): ClonedPayload {
  const payload = structuredClone(original);
  const warnings: string[] = [];
  const platform = payload.executionPlatform as ExecutionPlatform | undefined;
  const onAzure = platform === 'azure';
  delete payload._id;
  delete payload.resourceId;

  if (overrides.mode === 'resume' && overrides.resumeWorkDir) payload.resumeWorkDir = overrides.resumeWorkDir;
  if (overrides.jobName) payload.name = overrides.jobName;
  if (overrides.costLimit !== undefined) payload.execution = { ...asObject(payload.execution), computeCostLimit: overrides.costLimit };
  if (overrides.instanceType) {
    const master = asObject(payload.masterInstance);
    payload.masterInstance = { ...master, requestedInstance: { ...asObject(master.requestedInstance), type: overrides.instanceType } };
  }
  if (overrides.nextflowVersion) {
    if (onAzure) {
      if (!['latest', LATEST_NEXTFLOW_VERSION.azure].includes(overrides.nextflowVersion)) {
        warnings.push(`Azure only runs Nextflow ${LATEST_NEXTFLOW_VERSION.azure}; --nextflow-version is ignored.`);
      }
    } else if ('nextflowVersion' in payload) {
      const latest = platform && platform in LATEST_NEXTFLOW_VERSION ? LATEST_NEXTFLOW_VERSION[platform] : undefined;
      payload.nextflowVersion = overrides.nextflowVersion === 'latest' && latest ? latest : overrides.nextflowVersion;
    } else {
      warnings.push('This job has no Nextflow version (a bash job); --nextflow-version is ignored.');
    }
  }
  if (overrides.branch) {
    const revision: Record<string, unknown> = { ...asObject(payload.revision), revisionType: 'branch', branch: overrides.branch };
    delete revision.tag;
    delete revision.commit;
    payload.revision = revision;
  }
  if (overrides.profile) payload.profile = overrides.profile;
  if (overrides.doNotSaveLogs) payload.saveProcessLogs = false;
  if (overrides.useFusion) {
    if (onAzure) warnings.push('Azure does not use the fusion file system; --accelerate-file-staging is ignored.');
    else payload.usesFusionFileSystem = true;
  }
  if (overrides.accelerateSavingResults) payload.accelerateSavingResults = true;
  if (overrides.resumable) {
    if (overrides.mode === 'resume') warnings.push('--resumable only applies when cloning a job; it is ignored when resuming.');
    else if ('command' in payload) warnings.push('Bash jobs are not resumable; --resumable is ignored.');
    else payload.resumable = true;
  }
  if ('command' in payload) payload.batch = { enabled: false };
  if (overrides.jobQueueId) {
    if (onAzure) warnings.push('Azure does not use job queues; --job-queue is ignored.');
    else payload.batch = { ...asObject(payload.batch), jobQueue: overrides.jobQueueId };
  }
  if (overrides.parameters?.length) {
    const parameters = Array.isArray(payload.parameters) ? (payload.parameters as PayloadParameter[]) : [];
    for (const override of overrides.parameters) {
      if (typeof override !== 'string') {
        overrideParameter(parameters, override.name, override);
        continue;
      }
      const at = override.indexOf('=');
      if (at < 0)
        throw new RunyardValueError(`Please, specify -p / --parameter using a single '=' as spacer. E.g: input=value. Got: '${override}'`);
      overrideParameter(parameters, override.slice(0, at), override.slice(at + 1));
    }
    payload.parameters = parameters;
  }
  if (overrides.projectId) payload.project = overrides.projectId;
  return { payload, warnings };
}
