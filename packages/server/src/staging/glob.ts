/**
 * Glob patterns of `globPattern` parameters, as Nextflow reads them (Java's glob syntax): `*` and
 * `?` within one path segment, `**` across segments, `[abc]`, `[!abc]`, `[a-z]` and `{a,b}`.
 * Patterns are relative to their folder and may not climb out of it.
 */

export const MAX_GLOB_LENGTH = 1000;

/** Why a pattern cannot be used, or null: empty, absolute, a `..` segment, a control character or backslash, unbalanced brackets. */
export function globProblem(pattern: unknown): string | null {
  if (typeof pattern !== 'string' || !pattern) return 'must be a non-empty string';
  if (pattern.length > MAX_GLOB_LENGTH) return `must be at most ${MAX_GLOB_LENGTH} characters`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(pattern)) return 'must not contain control characters';
  if (pattern.includes('\\')) return 'must not contain a backslash';
  if (pattern.startsWith('/')) return 'must be relative to its folder';
  if (pattern.split('/').some((s) => s === '..' || s === '.' || s === '')) return 'must not have ".", ".." or empty segments';
  try {
    globToRegExp(pattern);
  } catch (e) {
    return (e as Error).message;
  }
  return null;
}

const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The RegExp matching the relative paths (with `/`) that the pattern matches. Throws on unbalanced brackets or braces. */
export function globToRegExp(pattern: string): RegExp {
  let out = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        i++;
        if (pattern[i + 1] === '/') {
          i++;
          out += '(?:.*/)?';
        } else out += '.*';
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) throw new Error('has an unclosed "["');
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      if (body.includes('/')) throw new Error('has a "/" inside brackets');
      out += `[${negate ? '^/' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += escape(c);
  }
  if (braces) throw new Error('has an unclosed "{"');
  return new RegExp(`^${out}$`, 'u');
}
