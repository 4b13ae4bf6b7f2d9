import type { RunyardClient } from '@runyard/client';
import { Option } from 'commander';
import type { Connection } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { describeError } from '../../errors/describe-error.js';
import { sessionId } from '../../options/object-id.js';
import { loadSdk } from '../../sdk.js';

// What `link`, `datasets link` and `job results|workdir|logs --link` share: the paths checked before
// anything is sent (az:// refused, duplicate mount names), and the lines the SDK logs while it
// links and waits for each mount, sorted into what got mounted, what failed and what is a warning.

/** cloudos-cli's --session-id of the linking commands. */
export function sessionIdOption(description = 'id of the interactive session to link into (24 hexadecimal characters)'): Option {
  return new Option('--session-id <id>', description).argParser(sessionId);
}

export const AZURE_REFUSED =
  'Azure Blob Storage paths (az://) are not supported for linking. Azure environments do not support linking folders to Interactive Analysis sessions.';

/** cloudos-cli's words for two items that would have one mount name. */
export function duplicateName(name: string, first: string, second: string): string {
  return `Duplicate mount name '${name}' detected. The folders '${first}' and '${second}' would both be mounted with the same name. Please use folders with unique names.`;
}

/** The datasets at the top of every project: a File Explorer path starting elsewhere starts with its project. */
const DATASETS = new Set(['Data', 'Analyses Results', 'AnalysesResults', 'Cohorts']);

export interface CheckedLinkPaths {
  /** The paths as the SDK takes them: s3:// URLs as given, File Explorer paths inside their project. */
  paths: string[];
  /** The project of the File Explorer paths, if any. */
  projectName?: string;
}

/**
 * The paths of `link` checked before any request, as cloudos-cli's _parse_folders_to_data_items
 * does (az:// refused, an s3:// URL needs a key, duplicate mount names refused), usage errors all.
 * A File Explorer path is `project/Data/x` (cloudos-cli's form) or, with --project-name (or the
 * profile's project), `Data/x`; all of one command must be of one project. A path naming another
 * project than --project-name is refused (the profile's project is only a default).
 */
export async function checkLinkPaths(
  given: readonly string[],
  projectName: string | undefined,
  profileProject?: string,
): Promise<CheckedLinkPaths> {
  const sdk = await loadSdk();
  const seen = new Map<string, string>();
  const paths: string[] = [];
  let project: string | undefined;
  for (const path of given) {
    if (path.startsWith('az://')) throw new UsageError(AZURE_REFUSED);
    let name: string;
    if (path.startsWith('s3://')) {
      try {
        name = sdk.parseStoragePath(path).name;
      } catch (e) {
        throw new UsageError(`${path}: ${(e as Error).message}`);
      }
      paths.push(path);
    } else {
      let parts: string[];
      try {
        parts = sdk.pathSegments(path);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      let inProject = projectName ?? profileProject;
      if (parts.length && !DATASETS.has(parts[0])) {
        inProject = parts.shift();
        if (projectName !== undefined && projectName !== inProject) {
          throw new UsageError(
            `'${path}' is a path of project '${inProject}', not of --project-name '${projectName}'; write it as Data/... (or Analyses Results/...) inside '${projectName}'.`,
          );
        }
      }
      if (!parts.length)
        throw new UsageError(`'${path}' names no folder: give one inside the project, e.g. ${inProject ?? 'project'}/Data/folder.`);
      if (!inProject) {
        throw new UsageError(`'${path}' is a File Explorer path: give its project with --project-name, or write it as <project>/${path}.`);
      }
      if (project !== undefined && project !== inProject) {
        throw new UsageError(
          `File Explorer paths of two projects ('${project}' and '${inProject}'): link them with one command per project.`,
        );
      }
      project = inProject;
      name = parts[parts.length - 1];
      paths.push(parts.join('/'));
    }
    const other = seen.get(name);
    if (other !== undefined) throw new UsageError(duplicateName(name, other, path));
    seen.set(name, path);
  }
  return { paths, projectName: project };
}

/** The lines the SDK logs while linking, sorted: mounted (to `mountedTo`), failed, warnings (stderr). */
export class MountReport {
  mounted = 0;
  failed = 0;
  unverified = 0;
  skipped = 0;
  constructor(
    private readonly ctx: CliContext,
    private readonly mountedTo: 'stdout' | 'stderr',
  ) {}

  readonly log = (line: string): void => {
    const text = line.replace(/^\t+/, '');
    if (text.startsWith('Successfully mounted')) {
      this.mounted++;
      this.ctx[this.mountedTo].write(`${text}\n`);
      return;
    }
    if (/^Failed to (mount|link)/.test(text)) this.failed++;
    else if (text.startsWith('Warning: Could not verify')) this.unverified++;
    else if (/^(Cannot link|No .* found to link)/.test(text)) this.skipped++;
    this.ctx.stderr.write(`${line.startsWith('\t') ? '  ' : ''}${text}\n`);
  };

  /** Exit 1 when a mount failed; a mount that could not be verified is only a warning, as in cloudos-cli. */
  finish(what: string): void {
    if (this.failed) throw new CliError(`${what}: ${this.failed} could not be linked (see above).`);
    if (this.unverified) {
      this.ctx.stderr.write('The linking request was submitted, but not every mount could be verified (see the warnings above).\n');
    } else if (!this.mounted) {
      throw new CliError(`${what}: nothing was linked (see above).`);
    } else {
      this.ctx.stderr.write('Linking operation completed successfully!\n');
    }
  }
}

/** Links folders (storage URLs, File Explorer paths of `projectName`) and reports each mount. */
export async function linkAndReport(
  client: RunyardClient,
  conn: Connection,
  session: string,
  paths: readonly string[],
  report: MountReport,
  projectName?: string,
): Promise<void> {
  try {
    await client.linkFoldersBatch(paths, session, conn.workspaceId, { projectName, log: report.log });
  } catch (e) {
    const { message, exitCode } = await describeError(e);
    throw new CliError(`Failed to link ${paths.join(', ')} into session ${session}: ${message}`, exitCode);
  }
}
