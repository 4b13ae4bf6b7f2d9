// Keeps docs/ in step with the code: every error code, configuration key and route is documented,
// and nothing documented has gone from the code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES, ROUTE_ROLES, ROUTES } from '@runyard/contract';
import { CONFIG_KEYS } from '@runyard/server';

const docsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs');
const readDoc = (name: string) => readFileSync(path.join(docsDir, name), 'utf8');

/** Rows of the markdown tables in `text` as arrays of trimmed cells. */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => /^\|.*\|\s*$/.test(line) && !/^\|[\s|:-]+\|\s*$/.test(line))
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

/** The part of a markdown document from the heading `## title` to the next `## ` heading. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `the heading "## ${title}" is missing`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

const unquote = (cell: string) => cell.replace(/^`(.*)`$/, '$1');

describe('docs', () => {
  it('error-codes.md has one row per error code, with its HTTP status', () => {
    const rows = tableRows(readDoc('error-codes.md')).filter((r) => /^`[A-Z][A-Z0-9_]*`$/.test(r[0]));
    const documented = new Map(rows.map((r) => [unquote(r[0]), r[1]]));
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      assert.ok(documented.has(code), `docs/error-codes.md has no row for ${code}; add: | \`${code}\` | ${status} | <meaning> |`);
      assert.equal(documented.get(code), String(status), `docs/error-codes.md gives ${code} the wrong status`);
    }
    for (const code of documented.keys()) {
      assert.ok(Object.hasOwn(ERROR_CODES, code), `docs/error-codes.md documents ${code}, which ERROR_CODES no longer has`);
    }
    assert.equal(rows.length, documented.size, 'docs/error-codes.md documents a code twice');
  });

  it('roles.md gives every route the least role of the roles table', () => {
    const rows = tableRows(section(readDoc('roles.md'), 'Every route')).filter((r) => /^`\w+`$/.test(r[0]));
    const documented = new Map(rows.map((r) => [unquote(r[0]), r[2]]));
    for (const [id, role] of Object.entries(ROUTE_ROLES)) assert.equal(documented.get(id), role, `docs/roles.md: route ${id}`);
    assert.equal(rows.length, Object.keys(ROUTES).length, 'docs/roles.md lists a route that is not in the table, or one twice');
  });

  it('configuration.md has one row per configuration key, with its variable and default', () => {
    const rows = tableRows(section(readDoc('configuration.md'), 'Server settings')).filter((r) => /^`\w+`$/.test(r[0]));
    const documented = new Map(rows.map((r) => [unquote(r[0]), { env: unquote(r[1]), default: r[2] }]));
    for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
      const d: unknown = spec.default;
      const shown = d === '' ? '(empty)' : `\`${typeof d === 'string' ? d : JSON.stringify(d)}\``;
      const row = documented.get(key);
      assert.ok(row, `docs/configuration.md has no row for ${key}; add: | \`${key}\` | \`${spec.env}\` | ${shown} | ${spec.doc} |`);
      assert.equal(row.env, spec.env, `docs/configuration.md gives ${key} the wrong environment variable`);
      assert.equal(row.default, shown, `docs/configuration.md gives ${key} the wrong default`);
    }
    for (const key of documented.keys()) {
      assert.ok(Object.hasOwn(CONFIG_KEYS, key), `docs/configuration.md documents the key ${key}, which CONFIG_KEYS no longer has`);
    }
    assert.equal(rows.length, documented.size, 'docs/configuration.md documents a key twice');
  });

  it('configuration.md names only environment variables that something reads', () => {
    const known = new Set<string>([
      ...Object.values(CONFIG_KEYS).map((spec) => spec.env),
      'RUNYARD_CONFIG_FILE',
      'RUNYARD_APIKEY',
      'RUNYARD_PLATFORM_URL',
      'RUNYARD_WORKSPACE_ID',
      'RUNYARD_TEST_DATABASE_URL',
    ]);
    const text = readDoc('configuration.md');
    for (const name of new Set(text.match(/RUNYARD_[A-Z0-9_]+/g))) {
      assert.ok(known.has(name), `docs/configuration.md names ${name}, which nothing reads`);
    }
    for (const name of known) assert.ok(text.includes(name), `docs/configuration.md does not mention ${name}`);
  });

  it('operations.md names every route with its method', () => {
    // Path parameters may be written `:name` or `{name}`, under any name.
    const params = (t: string) => t.replace(/:[A-Za-z]+|\{[A-Za-z]+\}/g, '{}');
    const text = params(readDoc('operations.md'));
    for (const [id, route] of Object.entries(ROUTES)) {
      assert.ok(
        text.includes(params(`${route.method} ${route.path}`)),
        `docs/operations.md does not mention route ${id}: ${route.method} ${route.path}`,
      );
    }
  });
});
