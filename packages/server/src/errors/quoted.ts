const MAX_QUOTED_CHARS = 60;

// JSON.stringify escapes C0 controls, quotes, backslashes and lone surrogates; these it leaves
// as they are, yet they can still rewrite a terminal line or reorder text a person reads.
const INVISIBLE = /[\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * A value from a request, fit to appear in an error message: JSON-quoted with every control or
 * invisible character escaped, and cut to 60 characters with an ellipsis, so that a reply (and
 * a log line that copies it) never carries a long secret or a terminal escape sequence verbatim.
 */
export function quoted(value: unknown): string {
  const text = String(value);
  const chars = Array.from(text); // code points: a cut never splits a surrogate pair
  const cut = chars.length > MAX_QUOTED_CHARS ? chars.slice(0, MAX_QUOTED_CHARS).join('') + '…' : text;
  return JSON.stringify(cut).replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
