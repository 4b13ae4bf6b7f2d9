/** The default address of `runyard server start` and `npm start`. */
export const DEFAULT_PLATFORM_URL = 'http://127.0.0.1:8080';

/**
 * A platform URL without trailing slashes, or the reason it is not one. Without a scheme
 * (`127.0.0.1:8080`, `localhost`) the reason suggests the http:// form a person most likely meant.
 */
export function checkPlatformUrl(raw: string): { url: string } | { problem: string } {
  const text = raw.trim();
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname) return { url: text.replace(/\/+$/, '') };
  // `host:port` parses as a URL whose scheme is the host, so look at the text, not the parse.
  const bare = !/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && /^[^\s/]+(:\d+)?(\/\S*)?$/.test(text);
  const hint = bare ? ` Did you mean http://${text.replace(/\/+$/, '')}?` : '';
  return { problem: `The platform URL must start with http:// or https:// (not "${text}").${hint}` };
}
