// Parameters of a job request (seed contract §2.4, wire reference §2.3): parsing of `-p name=value`
// and `-a name=column`, the parameter objects, and the classification of container-job values.
// Resolving File Explorer paths to ids needs the server and is not done here.
import { RunyardValueError } from '../errors.js';
import type { WorkflowType } from './job-types.js';

/** The dashes written before a parameter name on the command line. */
export type ParameterPrefix = '--' | '-' | '';

export interface TextValueParameter {
  prefix: ParameterPrefix;
  name: string;
  parameterKind: 'textValue';
  textValue: string;
}

export interface DataItemParameter {
  prefix: ParameterPrefix;
  name: string;
  parameterKind: 'dataItem';
  dataItem: { kind: 'File'; item: string };
}

export interface GlobPatternParameter {
  prefix: ParameterPrefix;
  name: string;
  parameterKind: 'globPattern';
  globPattern: string;
  /** Id of the folder the pattern is matched in. */
  folder: string;
}

export interface ArrayFileColumnParameter {
  prefix: ParameterPrefix;
  name: string;
  parameterKind: 'arrayFileColumn';
  columnName: string;
  columnIndex: number;
}

/** One entry of `parameters[]` in `POST /api/v2/jobs`. */
export type JobParameter = TextValueParameter | DataItemParameter | GlobPatternParameter | ArrayFileColumnParameter;

/** A `name=value` string split into its parts; `name` has no leading dashes. */
export interface ParsedParameter {
  prefix: ParameterPrefix;
  name: string;
  value: string;
}

/** The prefix used when a parameter is written without dashes: `--` for Nextflow, none for WDL and containers. */
export function defaultPrefix(workflowType: WorkflowType): ParameterPrefix {
  return workflowType === 'nextflow' ? '--' : '';
}

/** The dashes a name starts with (`--`, `-` or none). */
export function prefixOf(name: string): ParameterPrefix {
  if (name.startsWith('--')) return '--';
  if (name.startsWith('-')) return '-';
  return '';
}

/** The name without its leading dashes. */
export function stripDashes(name: string): string {
  return name.replace(/^-+/, '');
}

/**
 * Splits `-p/--parameter` text: `name=value`, where the value may itself contain `=`.
 * The prefix comes from the form given (`--x=v`, `-x=v`); without dashes it is the workflow type's default.
 */
export function parseParameter(text: string, workflowType: WorkflowType): ParsedParameter {
  return splitNameValue(text, workflowType, '-p / --parameter');
}

function splitNameValue(text: string, workflowType: WorkflowType, option: string): ParsedParameter {
  const at = text.indexOf('=');
  if (at < 0) throw new RunyardValueError(`Please, specify ${option} using a single '=' as spacer. E.g: input=value. Got: '${text}'`);
  const rawName = text.slice(0, at);
  const name = stripDashes(rawName);
  if (!name) throw new RunyardValueError(`The ${option} value '${text}' has no name before the '='. E.g: input=value`);
  const given = prefixOf(rawName);
  return { prefix: rawName === name ? defaultPrefix(workflowType) : given, name, value: text.slice(at + 1) };
}

export function buildTextParameter(prefix: ParameterPrefix, name: string, value: string): TextValueParameter {
  return { prefix, name, parameterKind: 'textValue', textValue: value };
}

export function buildDataItemParameter(prefix: ParameterPrefix, name: string, fileId: string): DataItemParameter {
  return { prefix, name, parameterKind: 'dataItem', dataItem: { kind: 'File', item: fileId } };
}

export function buildGlobPatternParameter(prefix: ParameterPrefix, name: string, pattern: string, folderId: string): GlobPatternParameter {
  return { prefix, name, parameterKind: 'globPattern', globPattern: pattern, folder: folderId };
}

/** The top-level folders of a project's File Explorer. */
export const FILE_EXPLORER_ROOTS: readonly string[] = ['Data', 'Analyses Results', 'Cohorts'];

/** What a container-job parameter value stands for. */
export type ParameterValueClass =
  | { kind: 'globPattern'; folderPath: string; pattern: string; projectName?: string }
  | { kind: 'dataItem'; path: string; projectName?: string }
  | { kind: 'textValue' };

const GLOB_CHARACTERS = /[*?[]/;

function hasExtension(segment: string): boolean {
  const dot = segment.lastIndexOf('.');
  return dot > 0 && dot < segment.length - 1;
}

/** The path from its File Explorer root on (`rest`), and the project named before the root, if any; undefined outside the File Explorer. */
function locateInFileExplorer(segments: string[]): { projectName?: string; rest: string[] } | undefined {
  if (segments.length >= 2 && FILE_EXPLORER_ROOTS.includes(segments[0])) return { rest: segments };
  if (segments.length >= 3 && segments[0] && FILE_EXPLORER_ROOTS.includes(segments[1]))
    return { projectName: segments[0], rest: segments.slice(1) };
  return undefined;
}

/**
 * Classifies the value of a container-job parameter (`--name=value`):
 * - `s3://` and `az://` URLs are text;
 * - a File Explorer path (`Data/…`, `Analyses Results/…`, `Cohorts/…`, optionally after `<Project>/`)
 *   whose last segment holds a glob pattern (`*`, `?`, `[…]`) is a glob pattern on its folder;
 * - a path right under a File Explorer root is a file, even without an extension;
 *   after a project name it must have an extension to count as a file;
 * - anything else is text.
 * A path that names a folder (trailing `/`) or puts a pattern in a folder segment is an error.
 */
export function classifyParameterValue(value: string): ParameterValueClass {
  if (value.startsWith('s3://') || value.startsWith('az://')) return { kind: 'textValue' };
  const segments = value.replace(/^\//, '').split('/');
  const located = locateInFileExplorer(segments);
  if (!located) return { kind: 'textValue' };
  const { projectName, rest } = located;
  const last = rest[rest.length - 1];
  const folders = rest.slice(0, -1);
  const project = projectName === undefined ? {} : { projectName };
  if (folders.some((s) => GLOB_CHARACTERS.test(s))) {
    throw new RunyardValueError(`Glob patterns are only allowed in the last segment of a path: '${value}'`);
  }
  if (!last) {
    throw new RunyardValueError(`'${value}' names a folder; a parameter can name a file or a glob pattern such as '${rest.join('/')}*'`);
  }
  if (GLOB_CHARACTERS.test(last)) return { kind: 'globPattern', folderPath: folders.join('/'), pattern: last, ...project };
  if (projectName !== undefined && !hasExtension(last)) return { kind: 'textValue' };
  return { kind: 'dataItem', path: rest.join('/'), ...project };
}

/** An array-job column parameter together with whether its column was found in the header. */
export interface ArrayFileColumnResult {
  parameter: ArrayFileColumnParameter;
  /** false when the column is not in the header; `columnIndex` is then 0. */
  columnFound: boolean;
}

/**
 * Builds the parameter of `-a/--array-parameter name=column`: the column's index in the array-file header,
 * 0 when the header lacks it. The prefix is the form given (`--`, `-` or none).
 */
export function arrayFileColumnParameter(spec: string, headers: string[]): ArrayFileColumnResult {
  const { prefix, name, value } = splitNameValue(spec, 'docker', '-a / --array-parameter');
  const index = headers.indexOf(value);
  return {
    parameter: { prefix, name, parameterKind: 'arrayFileColumn', columnName: value, columnIndex: Math.max(index, 0) },
    columnFound: index >= 0,
  };
}
