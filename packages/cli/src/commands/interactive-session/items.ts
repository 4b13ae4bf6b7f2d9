import type { Datasets, RunyardClient, SessionDataItem } from '@runyard/client';
import type { Connection } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { describeError } from '../../errors/describe-error.js';
import { duplicateName } from '../link/common.js';
import type { ItemFlags, SessionPlatform } from './common.js';

// --mount (files) and --link (folders) of `interactive-session create|resume`, as cloudos-cli's
// parse_data_file, resolve_data_file_id, parse_link_path and validate_file_explorer_folder read
// them: parsed and checked before any request (usage errors), then File Explorer paths resolved
// through the Datasets listing, into the body's dataItems and fuseFileSystems (wire-api §2.11).

/** A --mount: an S3 file (its item made already), or a File Explorer file to find. */
type PlannedMount =
  { source: string; item: SessionDataItem; name: string } | { source: string; project: string; path: string; name: string };

/** A --link: an S3 folder (its item made already), or a File Explorer folder to check first. */
interface PlannedLink {
  source: string;
  item: SessionDataItem;
  name: string;
  /** A File Explorer folder: its project and path, checked through the Datasets listing. */
  explorer?: { project: string; path: string };
}

export interface ItemPlan {
  mounts: PlannedMount[];
  links: PlannedLink[];
}

/** `project/path` or `project > path` (cloudos-cli's two spellings; `>` wins), else undefined. */
function projectAndPath(value: string): [string, string] | undefined {
  const separator = value.includes('>') ? '>' : value.includes('/') ? '/' : undefined;
  if (!separator) return undefined;
  const at = value.indexOf(separator);
  return [value.slice(0, at).trim(), value.slice(at + 1).trim()];
}

/** parse_data_file: `s3://bucket/key` (an S3File named by its key) or `project/path/to/file`. */
export function parseMount(value: string): PlannedMount {
  if (value.startsWith('s3://')) {
    const [bucket, ...rest] = value.slice('s3://'.length).split('/');
    if (!bucket) throw new UsageError(`--mount: invalid S3 path: ${value}. Expected: s3://bucket_name/path/to/file`);
    const key = rest.length ? rest.join('/') : '/';
    const name = key.split('/').filter(Boolean).pop() ?? key;
    return { source: value, item: { type: 'S3File', data: { name: key, s3BucketName: bucket, s3ObjectKey: key } }, name };
  }
  const split = projectAndPath(value);
  if (!split || !split[0] || !split[1]) {
    throw new UsageError(
      `--mount: invalid data file format: ${value}. Expected an S3 file (s3://bucket/path/file.txt) or a File Explorer file (project_name/dataset_path, e.g. demo/Data/file.txt).`,
    );
  }
  const [project, path] = split;
  return { source: value, project, path, name: path.split('/').filter(Boolean).pop() ?? path };
}

const withSlash = (prefix: string) => (prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix);

/** parse_link_path: `s3://bucket/prefix/`, legacy `mountName:bucket:prefix`, or `project/folder/path`. */
export function parseLink(value: string): PlannedLink {
  if (value.startsWith('az://') || (value.startsWith('https://') && value.includes('.blob.core.windows.net'))) {
    throw new UsageError(
      `--link ${value}: Azure blob storage paths are not supported for linking. Folder linking is not supported on Azure execution platforms; use --mount, or the File Explorer.`,
    );
  }
  const s3 = (source: string, bucket: string, prefix: string, mountName?: string): PlannedLink => {
    const name = mountName ?? prefix.split('/').filter(Boolean).pop() ?? bucket;
    return { source, name, item: { type: 'S3Folder', data: { name, s3BucketName: bucket, s3Prefix: prefix } } };
  };
  if (value.startsWith('s3://')) {
    const [bucket, ...rest] = value.slice('s3://'.length).split('/');
    if (!bucket) throw new UsageError(`--link: invalid S3 path: ${value}. Expected: s3://bucket_name/prefix/`);
    return s3(value, bucket, withSlash(rest.join('/')));
  }
  if (value.includes(':') && !value.includes('//')) {
    const parts = value.split(':');
    if (parts.length !== 3) throw new UsageError(`--link: invalid link format: ${value}. Expected: mountName:bucketName:s3Prefix`);
    const [mountName, bucket, prefix] = parts;
    return s3(value, bucket, withSlash(prefix), mountName);
  }
  const split = projectAndPath(value);
  if (!split || !split[0]) {
    throw new UsageError(
      `--link: invalid link path format: ${value}. Expected an S3 path (s3://bucket/prefix/), a File Explorer folder (project/folder/path) or mountName:bucketName:prefix.`,
    );
  }
  const [project, path] = split;
  if (!path) throw new UsageError(`--link ${value}: give a folder inside project '${project}', e.g. ${project}/Data/folder.`);
  const name = path.split('/').filter(Boolean).pop() ?? project;
  // The quirk of the reference: the project's name goes in s3BucketName, the path in s3Prefix.
  return {
    source: value,
    name,
    item: { type: 'S3Folder', data: { name, s3BucketName: project, s3Prefix: withSlash(path) } },
    explorer: { project, path },
  };
}

/**
 * The items of --mount and --link checked before any request: comma-separated --link values split,
 * each parsed, duplicate link names refused, and on azure no S3 file and no link at all.
 */
export function planItems(flags: ItemFlags, platform: SessionPlatform): ItemPlan {
  const mounts = (flags.mount ?? []).map(parseMount);
  const given = (flags.link ?? []).flatMap((l) =>
    l
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  );
  if (platform === 'azure') {
    if (given.length) {
      throw new UsageError('Linking folders is not supported on Azure. Please use --mount to load your data in the session.');
    }
    const s3 = mounts.find((m) => 'item' in m);
    if (s3) throw new UsageError(`--mount ${s3.source}: S3 mounts are only supported on AWS. Use File Explorer paths for Azure.`);
  }
  const links = given.map(parseLink);
  const seen = new Map<string, string>();
  for (const l of links) {
    const other = seen.get(l.name);
    if (other !== undefined) throw new UsageError(duplicateName(l.name, other, l.source));
    seen.set(l.name, l.source);
  }
  return { mounts, links };
}

/** resolve_data_file_id: the path as given, else inside each dataset of the project in turn. */
async function findFile(ds: Datasets, path: string): Promise<SessionDataItem> {
  const name = path.split('/').filter(Boolean).pop() ?? path;
  const fileIn = async (at: string) => {
    const content = await ds.listFolderContent(at).catch(() => undefined);
    const file = content?.files?.find((f) => f.name === name);
    return file?._id ? { kind: 'File', item: file._id, name: file.name } : undefined;
  };
  const direct = await fileIn(path);
  if (direct) return direct;
  const datasets = (await ds.listProjectContent()).folders ?? [];
  if (!datasets.length) throw new CliError(`No datasets found in project. Cannot locate path '${path}'`);
  for (const d of datasets) {
    const found = await fileIn(`${d.name}/${path}`);
    if (found) return found;
  }
  throw new CliError(
    `File at path '${path}' not found in any dataset. Available datasets: ${datasets.map((d) => d.name).join(', ')}. Try using 'runyard datasets ls' to explore your data structure.`,
  );
}

/** validate_file_explorer_folder: the folder exists, is not virtual and is not empty. */
async function checkFolder(ds: Datasets, project: string, path: string, source: string): Promise<void> {
  const parts = path.split('/').filter(Boolean);
  const parent = parts.slice(0, -1).join('/');
  const name = parts[parts.length - 1];
  await ds.listFolderContent('');
  const found = ((await ds.listFolderContent(parent)).folders ?? []).find((f) => f.name === name);
  if (!found) {
    throw new CliError(
      `Folder '${name}' not found at path '${parent}' in project '${project}'. Please verify the folder exists using 'runyard datasets ls --project-name ${project}'.`,
    );
  }
  if (found.folderType === 'VirtualFolder') {
    throw new CliError(
      `The folder '${source}' is a virtual folder and cannot be linked. Virtual folders only exist in File Explorer. Please use a regular folder or S3 path instead.`,
    );
  }
  const inside = await ds.listFolderContent(path);
  if (!inside.files?.length && !inside.folders?.length) {
    throw new CliError(
      `The folder '${source}' is empty and cannot be linked. Please add files or subfolders to this folder before linking it.`,
    );
  }
}

export interface ResolvedItems {
  dataItems: SessionDataItem[];
  fuseFileSystems: SessionDataItem[];
  /** What the session will have under mounts/, for the messages: name and where it comes from. */
  shown: Array<{ name: string; source: string; folder: boolean }>;
}

/** The plan's File Explorer paths resolved (files by id) and checked (folders), one Datasets helper a project. */
export async function resolveItems(
  client: RunyardClient,
  conn: Connection,
  plan: ItemPlan,
  ctx: CliContext,
  verbose?: boolean,
): Promise<ResolvedItems> {
  const projects = new Map<string, Promise<Datasets>>();
  const datasetsOf = (project: string) => {
    let ds = projects.get(project);
    if (!ds) projects.set(project, (ds = client.datasets(conn.workspaceId, project)));
    return ds;
  };
  const failing = async (lead: string, e: unknown): Promise<never> => {
    const { message, exitCode } = await describeError(e);
    throw new CliError(`${lead}: ${message}`, exitCode);
  };
  const dataItems: SessionDataItem[] = [];
  for (const m of plan.mounts) {
    if ('item' in m) dataItems.push(m.item);
    else {
      if (verbose) ctx.stderr.write(`Resolving dataset: ${m.project}/${m.path}\n`);
      const item = await datasetsOf(m.project)
        .then((ds) => findFile(ds, m.path))
        .catch((e) => failing('Failed to resolve dataset files', e));
      if (verbose) ctx.stderr.write(`  ✓ Resolved to file ID: ${String(item.item)}\n`);
      dataItems.push(item);
    }
  }
  for (const l of plan.links) {
    if (!l.explorer) continue;
    const { project, path } = l.explorer;
    if (verbose) ctx.stderr.write(`Checking File Explorer folder: ${project}/${path}\n`);
    await datasetsOf(project)
      .then((ds) => checkFolder(ds, project, path, l.source))
      .catch((e) => failing('Failed to link folder', e));
  }
  return {
    dataItems,
    fuseFileSystems: plan.links.map((l) => l.item),
    shown: [
      ...plan.mounts.map((m) => ({ name: m.name, source: m.source, folder: false })),
      ...plan.links.map((l) => ({ name: l.name, source: l.source, folder: true })),
    ],
  };
}

/** The items' lines under the session's summary. */
export function itemLines(shown: ResolvedItems['shown']): string {
  return shown.map((s) => `  ${s.folder ? 'Linked folder' : 'Mounted file'}: ~/mounts/${s.name} (${s.source})\n`).join('');
}

/**
 * After --watch: waits for each item's mount (as `link` does) and says how it went on stderr. A
 * mount that failed is an error (exit 1); one not verified in time a warning.
 */
export async function reportItemMounts(
  client: RunyardClient,
  conn: Connection,
  sessionId: string,
  shown: ResolvedItems['shown'],
  ctx: CliContext,
): Promise<void> {
  let failed = 0;
  for (const s of shown) {
    const what = `${s.folder ? 'folder' : 'file'}: ${s.source}`;
    try {
      const m = await client.waitForMountCompletion(sessionId, conn.workspaceId, s.name);
      if (m.status === 'mounted') ctx.stderr.write(`Successfully mounted ${what}\n`);
      else {
        failed++;
        ctx.stderr.write(`Failed to mount ${what}\n  Error: ${m.errorMessage ?? 'Unknown error'}\n`);
      }
    } catch (e) {
      ctx.stderr.write(`Warning: Could not verify mount status - ${(await describeError(e)).message}\n`);
    }
  }
  if (failed) throw new CliError(`Session ${sessionId} is running, but ${failed} of its items could not be mounted (see above).`);
}
