import type { Datasets, ExplorerItem, RunyardClient } from '@runyard/client';
import type { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type Connection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { describeError } from '../../errors/describe-error.js';
import { loadSdk } from '../../sdk.js';
import { required } from '../job/job-options.js';

export interface DatasetsFlags extends ConnectionFlags {
  projectName?: string;
}

/** --project-name (default: the profile's project_name) and the connection options. */
export function addDatasetsOptions(cmd: Command): Command {
  cmd.option('--project-name <name>', "the project whose File Explorer this is (default: the profile's project_name)");
  addConnectionOptions(cmd, { workspace: true });
  return cmd;
}

export interface DatasetsRun {
  client: RunyardClient;
  conn: Connection;
  projectName: string;
  /** The File Explorer of the project (the projects search already made). */
  ds: Datasets;
}

/** Resolves the connection and the project name, then runs fn with the project's File Explorer. */
export async function withDatasets<T>(opts: DatasetsFlags, ctx: CliContext, fn: (run: DatasetsRun) => Promise<T>): Promise<T> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const projectName = required(ctx, opts.profile, opts.projectName, 'projectName');
  return withClient(conn, async (client) => fn({ client, conn, projectName, ds: await client.datasets(conn.workspaceId, projectName) }));
}

/**
 * The segments of a File Explorer path, checked before anything is sent: no `.` or `..` segment,
 * no backslash or control character (a usage error, exit 2). With `data`, the path must also be
 * `Data` or inside it (`inside`: only inside it), with the given message.
 */
export async function checkedPath(path: string, data?: { message: string; inside?: boolean }): Promise<string[]> {
  const sdk = await loadSdk();
  let parts: string[];
  try {
    parts = sdk.pathSegments(path);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (data && (parts[0] !== 'Data' || (data.inside && parts.length < 2))) throw new UsageError(data.message);
  return parts;
}

/** A failure as cloudos-cli words it (`<lead> <cause>`), with the cause's exit code. */
export async function failed(lead: string, e: unknown): Promise<never> {
  const report = await describeError(e);
  if (e instanceof UsageError) throw e;
  throw new CliError(`${lead} ${report.message}`, report.exitCode);
}

/** `'<parent>'`, or `'[project root]'` at the top. */
export const shownParent = (parent: string) => parent || '[project root]';

/**
 * The item at a path, as cloudos-cli finds it: its parent listed (a failure there is `<lead> <cause>`),
 * then the item by name among files and folders (`Item 'x' not found in 'parent'`).
 */
export async function locate(
  ds: Datasets,
  parts: string[],
  lead: (parent: string) => string,
): Promise<{ item: ExplorerItem; parent: string; name: string }> {
  const parent = parts.slice(0, -1).join('/');
  const name = parts[parts.length - 1];
  const content = await ds.listFolderContent(parent).catch((e) => failed(lead(parent), e));
  const item = [...(content.files ?? []), ...(content.folders ?? [])].find((i) => i.name === name);
  if (!item) throw new CliError(`Item '${name}' not found in '${shownParent(parent)}'`);
  return { item, parent, name };
}
