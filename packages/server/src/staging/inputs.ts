import { existsSync } from 'node:fs';
import { mkdir, rm, symlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import yaml from 'js-yaml';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { EngineError } from '../errors/engine-error.js';
import { pullFile } from '../storage/blob-sync.js';
import { BlobNotFoundError, type BlobStore } from '../storage/blob-store.js';
import { isPathInside } from '../storage/local.js';
import { storageDepsOf } from '../storage/storage-deps.js';
import { unseal } from '../store/secret-box.js';
import type { FolderRow, JobRow } from '../store/rows.js';
import type { Database } from '../store/schema.js';
import { MAX_ARRAY_FILE_BYTES } from './array-file-limit.js';
import { globToRegExp } from './glob.js';
import {
  findInputFile,
  findInputFolder,
  idOf,
  paramsFileFormat,
  paramsFileRef,
  resolveParamsFile,
  type InputFolder,
  type StoredParameter,
} from './input-refs.js';

/**
 * Staging of a job's File Explorer inputs before its task starts (see docs/job-data.md):
 *
 * - a `dataItem` parameter becomes the path of its file: on the local store the stored file
 *   itself (tasks only read it), on S3 and Azure a copy in `<inputs>/<parameter>/<file name>`;
 * - a `globPattern` parameter becomes `<directory>/<pattern>`, the directory holding the
 *   matching files of its folder at their paths relative to it: on the local store an S3 folder
 *   is used in place, a virtual folder (or dataset) gets links to its files in
 *   `<inputs>/<parameter>/`; on S3 and Azure the matching objects are downloaded there. The
 *   matched files themselves are listed too (bash jobs get them as RUNYARD_FILES_<NAME>);
 * - the `parametersFile` (JSON or YAML, a File Explorer file or an s3:// / az:// object) is read
 *   and its parameters handed to the engine.
 *
 * `<inputs>` is outside the job's storage (beside its control files), so staged copies are never
 * uploaded with the job's outputs. An input that has gone since the submission fails the job.
 */

export interface StagedParameter {
  /** What the task gets as the parameter's value: a file path, or `<directory>/<pattern>`. */
  value: string;
  /** The files it stands for. */
  files: string[];
}

export interface JobInputs {
  /** By position in the job's parameter list. */
  parameters: Map<number, StagedParameter>;
  /** The parameters of the parametersFile, or null. */
  paramsFile: Record<string, unknown> | null;
  /** Host paths (files or directories) the task reads its inputs from: mounted read-only into a container. */
  readPaths: string[];
  /**
   * The local store's files and folders among readPaths, held open from the check on (below their bucket, links
   * followed only inside it), for the sandbox to bind from the handle: a running task of the workspace may change
   * the path meanwhile (swap a folder on the way for a link out). Closed by releaseInputs once the task has ended.
   */
  held: { path: string; handle: FileHandle }[];
  /** Lines for the job's log. */
  notes: string[];
  /** Bash array jobs: the array file's bytes, read through the store (never by a path a task could change). */
  arrayFileBytes?: Buffer;
  /** Bash jobs with a customScriptFile: the path of the script. */
  customScript?: string;
  /** Jobs with dockerLogin: the registry accounts of the job's user, unsealed for the task's login only. */
  registryAccounts?: { registry: string; username: string; password: string }[];
}

export interface StageDeps {
  db: Kysely<Database>;
  blobs: BlobStore;
  /** The key that unseals secrets of the database (a job's registry accounts). */
  secretKeyFile?: string;
}

/** Most objects one glob input may look through, and most bytes of a parametersFile. */
export const MAX_INPUT_OBJECTS = 100_000;
export const MAX_PARAMS_FILE_BYTES = 10 * 1024 * 1024;

interface InputObject {
  /** Path relative to the folder, `/`-separated. */
  rel: string;
  bucket: string;
  key: string;
}

const isStorageFolder = (f: FolderRow) => f.item_type !== 'VirtualFolder' && Boolean(f.bucket && f.storage_key);

/** Every object of a folder or dataset (through virtual folders, into S3/Azure folders), with its path relative to it. */
async function folderObjects(deps: StageDeps, workspaceId: string, top: InputFolder): Promise<InputObject[]> {
  const out: InputObject[] = [];
  const add = (o: InputObject) => {
    if (out.length >= MAX_INPUT_OBJECTS) throw new EngineError(`it holds more than ${MAX_INPUT_OBJECTS} files`);
    out.push(o);
  };
  const listStorage = async (bucket: string, prefix: string, rel: string) => {
    let cursor: string | undefined;
    do {
      const page = await deps.blobs.list(bucket, prefix, { limit: 1000, ...(cursor && { cursor }) });
      for (const e of page.entries) if (!e.isDir) add({ rel: rel + e.key.slice(prefix.length + 1), bucket, key: e.key });
      cursor = page.cursor;
    } while (cursor);
  };
  const visit = async (id: string, rel: string, depth: number): Promise<void> => {
    if (depth > 64) return;
    const files = await deps.db
      .selectFrom('files')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('parent_id', '=', id)
      .where('status', '=', 'ready')
      .execute();
    for (const f of files) if (f.bucket && f.storage_key) add({ rel: rel + f.name, bucket: f.bucket, key: f.storage_key });
    const folders = await deps.db
      .selectFrom('folders')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('parent_id', '=', id)
      .where('status', '=', 'ready')
      .execute();
    for (const f of folders) {
      if (isStorageFolder(f)) await listStorage(f.bucket!, f.storage_key!, `${rel}${f.name}/`);
      else await visit(f.id, `${rel}${f.name}/`, depth + 1);
    }
  };
  if (top.kind === 'folder' && isStorageFolder(top.row)) await listStorage(top.row.bucket!, top.row.storage_key!, '');
  else await visit(top.row.id, '', 0);
  return out;
}

/** A directory name for a parameter's staged files: its name with anything but letters, digits, `.`, `_`, `-` made `_`; unique. */
function dirNameFor(name: string, used: Set<string>): string {
  let base = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'input';
  if (/^\.+$/.test(base)) base = `_${base}`;
  let out = base;
  for (let n = 2; used.has(out); n++) out = `${base}-${n}`;
  used.add(out);
  return out;
}

/** `root`/`rel`, refused when it would leave root. */
function inside(root: string, rel: string): string {
  const target = path.resolve(root, ...rel.split('/'));
  if (target === root || !isPathInside(root, target)) throw new EngineError(`the file "${rel}" would leave its input directory`);
  return target;
}

/** An object's bytes, at most `max` of them (an EngineError beyond). */
export async function readAll(blobs: BlobStore, bucket: string, key: string, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await blobs.get(bucket, key)) {
    size += (chunk as Buffer).length;
    if (size > max) throw new EngineError(`it is larger than ${max} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function parseParamsFile(text: string, format: 'json' | 'yaml'): Record<string, unknown> {
  let value: unknown;
  try {
    value = format === 'json' ? JSON.parse(text) : yaml.load(text, { schema: yaml.CORE_SCHEMA });
  } catch (e) {
    throw new EngineError(`it is not valid ${format.toUpperCase()}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new EngineError('it does not hold an object of parameters');
  return value as Record<string, unknown>;
}

/** Turns a step's failure into the job's message, naming the input. */
async function step<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof BlobNotFoundError)
      throw new EngineError(`The input ${what} could not be staged: its object ${e.key ?? ''} is gone from the store.`);
    const message = e instanceof AppError || e instanceof EngineError ? e.message : `${(e as Error).message}`;
    throw new EngineError(`The input ${what} could not be staged: ${message.replace(/\.?$/, '.')}`);
  }
}

/** Stages the inputs of a job for its task into `inputsDir` (see the module comment). Throws an EngineError naming the input that failed. */
export async function stageInputs(deps: StageDeps, job: JobRow, inputsDir: string): Promise<JobInputs> {
  const out: JobInputs = { parameters: new Map(), paramsFile: null, readPaths: [], held: [], notes: [] };
  try {
    return await stageInto(deps, job, inputsDir, out);
  } catch (e) {
    await releaseInputs(out);
    throw e;
  }
}

/** Closes what staging held open for the task's binds. */
export async function releaseInputs(inputs: Pick<JobInputs, 'held'>): Promise<void> {
  const held = inputs.held.splice(0);
  await Promise.all(held.map(({ handle }) => handle.close().catch(() => undefined)));
}

async function stageInto(deps: StageDeps, job: JobRow, inputsDir: string, out: JobInputs): Promise<JobInputs> {
  const { db, blobs } = deps;
  const local = Boolean(blobs.localPath);
  // An earlier attempt's copies go (looked for at once: usually there are none, and a round trip through the thread pool waits milliseconds).
  if (existsSync(inputsDir)) await rm(inputsDir, { recursive: true, force: true });
  const used = new Set<string>();
  const stored = JSON.parse(job.parameters_json || '[]') as StoredParameter[];
  /**
   * A local store's file or folder the task reads in place: its path (as the task names it), held open from now
   * on for the bind (JobInputs.held). A folder where a file is wanted, or the reverse, is not found.
   */
  const hold = async (bucket: string, key: string, kind: 'file' | 'folder'): Promise<string> => {
    const { path: where, handle } = await blobs.holdLocal!(bucket, key);
    out.held.push({ path: where, handle });
    const st = await handle.stat();
    if (kind === 'file' ? !st.isFile() : !st.isDirectory()) throw new BlobNotFoundError(bucket, key);
    out.readPaths.push(where);
    return where;
  };
  // A File Explorer file: on the local store the stored file itself (tasks only read it), else a copy in <inputs>/<dir>/.
  const stageFile = async (id: string, dirName: string): Promise<StagedParameter> => {
    const file = await findInputFile(db, job.workspace_id, id);
    if (!file) throw new EngineError(`file ${id} is no longer in this workspace`);
    if (local) {
      const file_ = await hold(file.bucket!, file.storage_key!, 'file');
      return { value: file_, files: [file_] };
    }
    const dir = path.join(inputsDir, dirName);
    const target = inside(dir, path.basename(file.name));
    await pullFile(blobs, file.bucket!, file.storage_key!, target);
    out.readPaths.push(dir);
    return { value: target, files: [target] };
  };

  for (const [index, p] of (Array.isArray(stored) ? stored : []).entries()) {
    const name = String(p.name ?? '');
    if (p.parameterKind === 'dataItem') {
      const id = idOf(p.dataItem?.item);
      if (!id) continue;
      out.parameters.set(index, await step(`"${name}"`, () => stageFile(id, dirNameFor(name, used))));
    } else if (p.parameterKind === 'globPattern' && typeof p.globPattern === 'string') {
      const id = idOf(p.folder);
      if (!id) continue;
      const pattern = p.globPattern;
      out.parameters.set(
        index,
        await step(`"${name}"`, async () => {
          const folder = await findInputFolder(db, job.workspace_id, id);
          if (!folder) throw new EngineError(`folder ${id} is no longer in this workspace`);
          const re = globToRegExp(pattern);
          const matched = (await folderObjects(deps, job.workspace_id, folder))
            .filter((o) => re.test(o.rel))
            .sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
          if (!matched.length) out.notes.push(`Runyard: no file of the folder of parameter "${name}" matches ${pattern}.`);
          if (local && folder.kind === 'folder' && isStorageFolder(folder.row)) {
            const dir = await hold(folder.row.bucket!, folder.row.storage_key!, 'folder');
            return { value: `${dir}/${pattern}`, files: await Promise.all(matched.map((o) => blobs.localPath!(o.bucket, o.key))) };
          }
          const dir = path.join(inputsDir, dirNameFor(name, used));
          await mkdir(dir, { recursive: true });
          const files: string[] = [];
          for (const o of matched) {
            const target = inside(dir, o.rel);
            if (local) {
              const source = await hold(o.bucket, o.key, 'file');
              await mkdir(path.dirname(target), { recursive: true });
              await symlink(source, target);
            } else await pullFile(blobs, o.bucket, o.key, target);
            files.push(target);
          }
          out.readPaths.push(dir);
          return { value: `${dir}/${pattern}`, files };
        }),
      );
    }
  }

  const request = JSON.parse(job.request_json || '{}') as {
    parametersFile?: unknown;
    arrayFile?: { dataItem?: { item?: unknown } };
    customScriptFile?: { dataItem?: { item?: unknown } };
  };
  // Bash jobs: the array file (read by the engine for its rows) and the script the command names.
  const arrayFileId = idOf(request.arrayFile?.dataItem?.item);
  if (arrayFileId)
    out.arrayFileBytes = await step('arrayFile', async () => {
      const file = await findInputFile(db, job.workspace_id, arrayFileId);
      if (!file) throw new EngineError(`file ${arrayFileId} is no longer in this workspace`);
      // On the local store the stored file may be in a running job's results: the store reads it without following links.
      return readAll(blobs, file.bucket!, file.storage_key!, MAX_ARRAY_FILE_BYTES);
    });
  const scriptId = idOf(request.customScriptFile?.dataItem?.item);
  if (scriptId) out.customScript = (await step('customScriptFile', () => stageFile(scriptId, dirNameFor('.custom-script', used)))).value;

  if (request.parametersFile !== undefined && request.parametersFile !== null) {
    out.paramsFile = await step('parametersFile', async () => {
      const ref = paramsFileRef(request.parametersFile);
      if (!ref) return null;
      const { azureAccount } = storageDepsOf(blobs);
      const where = await resolveParamsFile(db, { kind: blobs.kind, azureAccount }, job.workspace_id, ref);
      const format = paramsFileFormat(where.name) ?? paramsFileFormat(where.key) ?? 'json';
      const text = (await readAll(blobs, where.bucket, where.key, MAX_PARAMS_FILE_BYTES)).toString('utf8');
      return parseParamsFile(text, format);
    });
  }
  if (job.docker_login === 1) {
    if (!deps.secretKeyFile)
      throw new EngineError('The job logs in to its registry, and this server has no secret key to read the account with.');
    const keyFile = deps.secretKeyFile;
    const rows = await db
      .selectFrom('docker_registries')
      .select(['registry', 'username', 'password_sealed'])
      .where('user_id', '=', job.user_id)
      .execute();
    out.registryAccounts = rows.map((r) => {
      try {
        return { registry: r.registry, username: r.username, password: unseal(keyFile, r.password_sealed) };
      } catch {
        throw new EngineError(
          `The docker registry account at "${r.registry}" cannot be read with this server's secret key (RUNYARD_SECRET_KEY_FILE); link it again.`,
        );
      }
    });
  }
  out.readPaths = [...new Set(out.readPaths)];
  return out;
}
