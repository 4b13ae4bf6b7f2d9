// File Explorer paths (seed contract §2.9: relative to the project): split into segments, checked
// before anything is sent (T9: no `.` or `..` segment, no control character, in any encoding).
import { RunyardValueError } from '../errors.js';

/** The name the public client accepts for the `Analyses Results` dataset in a path. */
export const ANALYSES_RESULTS_ALIAS = 'AnalysesResults';
export const ANALYSES_RESULTS = 'Analyses Results';

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The segments of a path (leading and trailing slashes ignored); a `.` or `..` segment (also
 * percent-encoded), a backslash or a control character is a RunyardValueError.
 */
export function pathSegments(path: string | null | undefined): string[] {
  if (path === null || path === undefined) return [];
  if (typeof path !== 'string') throw new RunyardValueError('A path must be a string.');
  if (/[\u0000-\u001f\u007f]/.test(path)) throw new RunyardValueError(`Invalid path '${path}': it contains a control character.`);
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (!trimmed) return [];
  const parts = trimmed.split('/');
  for (const p of parts) {
    const d = decoded(p);
    if (p === '' || d === '.' || d === '..' || d.includes('/') || d.includes('\\') || p.includes('\\')) {
      throw new RunyardValueError(`Invalid path '${path}': '${p}' is not a folder or file name (no '.', '..', '\\' or empty segments).`);
    }
  }
  return parts;
}

/** `a/b/c` → parent `a/b` and name `c` (parent '' at the top). */
export function splitParent(path: string): { parent: string; name: string } {
  const parts = pathSegments(path);
  if (!parts.length) throw new RunyardValueError('The path is empty.');
  return { parent: parts.slice(0, -1).join('/'), name: parts[parts.length - 1] };
}

/** The segments of a path in `Data`: a RunyardValueError unless it is `Data` or inside it (with `allowData` false: only inside it). */
export function requireDataPath(path: string, what: string, allowData = true): string[] {
  const parts = pathSegments(path);
  if (parts[0] !== 'Data' || (!allowData && parts.length < 2)) {
    throw new RunyardValueError(allowData ? `${what} must start with 'Data/' or be 'Data'.` : `${what} must start with 'Data/'.`);
  }
  return parts;
}
