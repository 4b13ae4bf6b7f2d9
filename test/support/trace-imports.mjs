// Preloaded with `node --import`: appends every module specifier the program resolves to the
// file named by TRACE_IMPORTS_FILE (one per line), so a test can see what a command loads.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  appendFileSync(process.env.TRACE_IMPORTS_FILE, specifier + '\\n');
  return next(specifier, context);
}
`),
);
