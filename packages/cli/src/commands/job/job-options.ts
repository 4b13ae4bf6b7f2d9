import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import { fromProfile } from '../../config/profile-default.js';
import { UsageError } from '../../errors/cli-error.js';
import { integerIn } from '../../options/integer.js';
import { numberIn } from '../../options/number.js';

// Options shared by the commands that launch a job (`job run`, `bash job`, `job clone|resume`), with
// cloudos-cli's names.

export const EXECUTION_PLATFORMS = ['aws', 'azure', 'hpc'] as const;
export const NEXTFLOW_VERSIONS = ['22.10.8', '24.04.4', '25.04.8', '25.10.4', '22.11.1-edge', 'latest'] as const;
export const REPOSITORY_PLATFORMS = ['github', 'gitlab', 'bitbucketServer'] as const;

/** The wait flags as commander parses them. */
export interface WaitFlags {
  waitCompletion?: boolean;
  /** Print the job's output as it runs, until it ends (Runyard's own). */
  follow?: boolean;
  /** Seconds. */
  waitTime: number;
  /** Seconds. */
  requestInterval: number;
  verbose?: boolean;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function costLimit(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (n < 0 && n !== -1)) {
    throw new InvalidArgumentError('expected US dollars, 0 or more (-1: no limit).');
  }
  return n;
}

/** An option parser for a file that exists; the absolute path. */
export function existingFile(value: string): string {
  if (!existsSync(value) || !statSync(value).isFile()) throw new InvalidArgumentError(`The file "${value}" does not exist.`);
  return path.resolve(value);
}

/** `-p, --parameter name=value`, repeatable. */
export function parameterOption(): Option {
  return new Option(
    '-p, --parameter <name=value>',
    'a workflow parameter; repeat for more (--name=value and -name=value set the prefix)',
  ).argParser(collect);
}

export function costLimitOption(defaultValue?: number): Option {
  const o = new Option('--cost-limit <usd>', 'stop the job when its cost reaches this many US dollars (-1: no limit)').argParser(costLimit);
  return defaultValue === undefined ? o : o.default(defaultValue);
}

export function instanceDiskOption(): Option {
  return new Option('--instance-disk <gb>', 'disk of the instance, in GB').argParser(integerIn(1, 65_536)).default(500);
}

/** --execution-platform and --repository-platform have no commander default: the profile may give them. */
export function executionPlatformOption(): Option {
  return new Option('--execution-platform <platform>', "where the job runs (default: the profile's, else aws)").choices(
    EXECUTION_PLATFORMS,
  );
}

export function repositoryPlatformOption(): Option {
  return new Option(
    '--repository-platform <platform>',
    "where the workflow's repository is hosted (default: the profile's, else github)",
  ).choices(REPOSITORY_PLATFORMS);
}

export function nextflowVersionOption(): Option {
  return new Option('--nextflow-version <version>', 'Nextflow version (default: per platform; latest: the newest)').choices(
    NEXTFLOW_VERSIONS,
  );
}

/** --wait-completion, --wait-time, --request-interval (and --verbose, which prints every poll). */
export function addWaitOptions(cmd: Command): Command {
  return cmd
    .option('--wait-completion', 'wait until the job finishes; exit 0 only if it completed')
    .addOption(
      new Option('--wait-time <seconds>', 'with --wait-completion, give up after this many seconds (exit 1)')
        .argParser(numberIn(0, 31_536_000, 'a number of seconds'))
        .default(3600),
    )
    .addOption(
      new Option(
        '--request-interval <seconds>',
        'with --wait-completion, seconds between two status requests (after the first 3 seconds, which poll 4 times a second)',
      )
        .argParser(numberIn(0.05, 3600, 'a number of seconds'))
        .default(5),
    )
    .option('--verbose', 'print the status of each request while waiting')
    .option('-f, --follow', "print the job's output as it runs, until it ends; exit 0 only if it completed (3 if aborted)");
}

/** The value of a required launch option: the flag, else the profile's; neither is a usage error. */
export function required(
  ctx: CliContext,
  profile: string | undefined,
  given: string | undefined,
  key: 'projectName' | 'workflowName',
): string {
  const v = given?.trim() || fromProfile(ctx, profile, key);
  if (v) return v;
  const flag = key === 'projectName' ? '--project-name' : '--workflow-name';
  const ini = key === 'projectName' ? 'project_name' : 'workflow_name';
  throw new UsageError(`Missing option: ${flag}. Give it on the command line, or save ${ini} in a profile with "runyard configure".`);
}

/** The option value, else the profile's, else the fallback. */
export function withProfile<T extends string>(
  ctx: CliContext,
  profile: string | undefined,
  given: T | undefined,
  key: 'executionPlatform' | 'repositoryPlatform',
  allowed: readonly T[],
  fallback: T,
): T {
  if (given) return given;
  const v = fromProfile(ctx, profile, key);
  if (v === undefined) return fallback;
  if (!allowed.includes(v as T)) {
    throw new UsageError(
      `The profile's ${key === 'executionPlatform' ? 'execution_platform' : 'repository_platform'} "${v}" is not one of ${allowed.join(', ')}.`,
    );
  }
  return v as T;
}

/** At most one of --git-commit, --git-tag and --git-branch. */
export function checkOneRevision(o: { gitCommit?: string; gitTag?: string; gitBranch?: string }): void {
  const given = [
    o.gitCommit !== undefined && '--git-commit',
    o.gitTag !== undefined && '--git-tag',
    o.gitBranch !== undefined && '--git-branch',
  ].filter(Boolean);
  if (given.length > 1) throw new UsageError(`Give only one of --git-commit, --git-tag and --git-branch, not ${given.join(' and ')}.`);
}
