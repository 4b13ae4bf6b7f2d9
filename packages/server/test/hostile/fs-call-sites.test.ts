// Keeps the server's file system calls on storage/beneath.ts where a task can write (docs/security.md,
// "The server never trusts a path a task can write"). Every source file of packages/server/src that
// uses node:fs or node:fs/promises is listed in ./fs-call-sites.ts with exactly the names it uses and
// why its raw calls are safe; beneath.ts itself, the module that owns those calls, is exempt. The
// imports are read with the TypeScript compiler's parser, so formatting cannot hide one.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { FS_CALL_SITES, PATH_FOLLOWING, WHOLE_MODULE, type FsCallSite } from './fs-call-sites.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** The module that owns the no-follow calls: exempt. */
const OWNER = 'storage/beneath.ts';
const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);
const ADVICE = 'if this reaches a directory a task can write, go through storage/beneath.ts; otherwise add it to fs-call-sites.ts with why';

/**
 * The names a source text uses from node:fs and node:fs/promises: named imports (by the name they
 * are exported under), and the members used on a whole module (a default or namespace import, a
 * require() or import() of it, `fs.promises`), WHOLE_MODULE when the module itself is passed on or
 * used in a way that names no member. Type-only imports are not uses.
 */
export function fsNamesOf(fileName: string, text: string): string[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const names = new Set<string>();
  /** Local names bound to a whole fs module, and the identifiers that declare them. */
  const modules = new Set<string>();
  const declaring = new Set<ts.Node>();

  const isFsModule = (node: ts.Node | undefined) => node !== undefined && ts.isStringLiteralLike(node) && FS_MODULES.has(node.text);
  const textOf = (node: ts.Node) => (ts.isIdentifier(node) || ts.isStringLiteralLike(node) ? node.text : undefined);

  /** A binding whose value is a whole fs module (or `promises`): a name, or a destructuring of members. */
  function bindModule(name: ts.BindingName): void {
    if (ts.isIdentifier(name)) {
      modules.add(name.text);
      declaring.add(name);
      return;
    }
    if (ts.isArrayBindingPattern(name)) return void names.add(WHOLE_MODULE);
    for (const element of name.elements) {
      const key = textOf(element.propertyName ?? element.name);
      if (element.dotDotDotToken || key === undefined) names.add(WHOLE_MODULE);
      else if (key === 'promises') bindModule(element.name);
      else names.add(key);
    }
  }

  /** How an expression whose value is a whole fs module is used. */
  function moduleUsed(expression: ts.Node): void {
    let at = expression;
    while (
      ts.isParenthesizedExpression(at.parent) ||
      ts.isAwaitExpression(at.parent) ||
      ts.isAsExpression(at.parent) ||
      ts.isNonNullExpression(at.parent)
    )
      at = at.parent;
    const parent = at.parent;
    if ((ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) && parent.expression === at) {
      const member = ts.isPropertyAccessExpression(parent) ? parent.name.text : textOf(parent.argumentExpression);
      if (member === 'promises') return moduleUsed(parent);
      names.add(member ?? WHOLE_MODULE);
      return;
    }
    if (ts.isVariableDeclaration(parent) && parent.initializer === at) return bindModule(parent.name);
    names.add(WHOLE_MODULE);
  }

  function imports(node: ts.Node): void {
    if (ts.isImportDeclaration(node) && isFsModule(node.moduleSpecifier)) {
      const clause = node.importClause;
      if (!clause || clause.isTypeOnly) return;
      if (clause.name) bindModule(clause.name);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) bindModule(bindings.name);
      else if (bindings)
        for (const element of bindings.elements) {
          if (element.isTypeOnly) continue;
          const imported = textOf(element.propertyName ?? element.name)!;
          if (imported === 'promises' || imported === 'default') bindModule(element.name);
          else names.add(imported);
        }
      return;
    }
    if (ts.isExportDeclaration(node) && isFsModule(node.moduleSpecifier)) {
      if (node.isTypeOnly) return;
      if (!node.exportClause || ts.isNamespaceExport(node.exportClause)) return void names.add(WHOLE_MODULE);
      for (const element of node.exportClause.elements) if (!element.isTypeOnly) names.add(textOf(element.propertyName ?? element.name)!);
      return;
    }
    if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      isFsModule(node.moduleReference.expression)
    ) {
      if (!node.isTypeOnly) bindModule(node.name);
      return;
    }
    // require('fs'), a createRequire function's call, import('fs'): any call given an fs module's name.
    if (ts.isCallExpression(node) && isFsModule(node.arguments[0])) {
      const dynamicImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      let up = node.parent;
      while (ts.isParenthesizedExpression(up)) up = up.parent;
      // import() gives a promise: used whole unless awaited.
      if (dynamicImport && !ts.isAwaitExpression(up)) names.add(WHOLE_MODULE);
      else moduleUsed(node);
    }
    ts.forEachChild(node, imports);
  }

  /** A use of a name bound to a whole module (a declaration of another thing of that name, or a type, is not one). */
  function uses(node: ts.Node): void {
    if (ts.isIdentifier(node) && modules.has(node.text) && !declaring.has(node)) {
      const parent = node.parent;
      const declares =
        (parent as { name?: ts.Node }).name === node && !ts.isShorthandPropertyAssignment(parent) && !ts.isExportSpecifier(parent);
      const property = ts.isPropertyAccessExpression(parent) && parent.name === node;
      const type = ts.isQualifiedName(parent) || ts.isTypeQueryNode(parent);
      if (!declares && !property && !type) moduleUsed(node);
    }
    ts.forEachChild(node, uses);
  }

  imports(source);
  // A use may bind the module to another name (const f = fs): again until no new one.
  for (let known = -1; known !== modules.size;) {
    known = modules.size;
    uses(source);
  }
  return [...names].sort();
}

/** Every TypeScript source under dir (declaration files aside), relative to it, `/`-separated. */
function sourcesOf(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(dir, rel)).sort()) {
    const sub = rel ? `${rel}/${name}` : name;
    // Followed: the test build's mirror holds links to the sources.
    if (statSync(path.join(dir, sub)).isDirectory()) out.push(...sourcesOf(dir, sub));
    else if (/\.(c|m)?tsx?$/.test(name) && !/\.d\.(c|m)?ts$/.test(name)) out.push(sub);
  }
  return out;
}

const list = (names: Iterable<string>) => [...names].join(', ');

/** What is wrong with the table, one message for each thing wrong. */
export function problemsOf(used: Map<string, string[]>, table: Record<string, FsCallSite>): string[] {
  const problems: string[] = [];
  for (const [file, names] of used) {
    const entry = table[file];
    if (!entry) {
      problems.push(`${file} uses ${list(names)} from node:fs(/promises), and fs-call-sites.ts has no entry for it: ${ADVICE}.`);
      continue;
    }
    const listed = new Set(entry.names);
    const added = names.filter((n) => !listed.has(n));
    const dropped = entry.names.filter((n) => !names.includes(n));
    if (added.length)
      problems.push(`${file} uses ${list(added)} from node:fs(/promises), which fs-call-sites.ts does not list for it: ${ADVICE}.`);
    if (dropped.length)
      problems.push(
        `fs-call-sites.ts lists ${list(dropped)} for ${file}, which no longer uses it: take it out of the entry (the table says what each file uses).`,
      );
    if (!entry.why.trim())
      problems.push(`fs-call-sites.ts gives no reason for ${file}: say why its raw calls never reach a directory a task can write.`);
    if (entry.kind === 'task-writable') {
      const kept = entry.kept ?? {};
      const following = names.filter((n) => PATH_FOLLOWING.has(n) && !kept[n]?.trim());
      if (following.length)
        problems.push(
          `${file} is marked task-writable in fs-call-sites.ts and uses ${list(following)}, which follow${following.length > 1 ? '' : 's'} a path: ` +
            "reach what a task can write through storage/beneath.ts (openBeneath, removeBeneath, listBeneath, ...); a call kept on a directory of the server's own needs its own reason in the entry's `kept`.",
        );
      const stale = Object.keys(kept).filter((n) => !(PATH_FOLLOWING.has(n) && names.includes(n)));
      if (stale.length)
        problems.push(
          `fs-call-sites.ts keeps ${list(stale)} for ${file}, which does not use it (or it follows no path): take it out of \`kept\`.`,
        );
    } else if (entry.kept) problems.push(`fs-call-sites.ts gives ${file} a \`kept\`, which only a task-writable entry has.`);
  }
  for (const file of Object.keys(table)) {
    if (file === OWNER) problems.push(`fs-call-sites.ts lists ${OWNER}, which owns the no-follow calls and is exempt: take it out.`);
    else if (!used.has(file))
      problems.push(`fs-call-sites.ts lists ${file}, which does not exist or uses nothing of node:fs: take its entry out.`);
  }
  return problems;
}

describe('the fs call sites of the server (storage/beneath.ts owns those where a task can write)', () => {
  it('finds the names a file uses from node:fs, however it imports them', () => {
    const text = [
      "import { readFileSync, type Stats, rm as remove } from 'node:fs';",
      "import type { Dirent } from 'fs';",
      "import fs from 'fs';",
      "import * as fsp from 'node:fs/promises';",
      "import { promises as p } from 'node:fs';",
      'import {',
      '  mkdir,',
      "} from 'fs/promises'",
      "import fse = require('fs');",
      'const { writeFileSync, promises: { open } } = require("node:fs");',
      "const cp = require('node:fs').cpSync;",
      "const loaded = await import('node:fs/promises');",
      "const { symlink } = await import('fs/promises');",
      "const whole = import('fs');",
      'fs.rmSync("x"); fsp.readdir("x"); p.stat("x"); fse["chmodSync"]("x"); loaded.unlink("x"); fs.promises.link("a", "b");',
      'const alias = fsp; alias.truncate("x");',
      'function f(fs: number, st: fs.Stats) { return st; }',
      'const o = { fs: 1 }; o.fs;',
    ].join('\n');
    assert.deepEqual(fsNamesOf('sample.ts', text), [
      WHOLE_MODULE,
      'chmodSync',
      'cpSync',
      'link',
      'mkdir',
      'open',
      'readFileSync',
      'readdir',
      'rm',
      'rmSync',
      'stat',
      'symlink',
      'truncate',
      'unlink',
      'writeFileSync',
    ]);
    assert.deepEqual(fsNamesOf('plain.ts', "import path from 'node:path';\nconst fs = { readFile() {} };\n"), []);
  });

  it('tells a new name, a name no longer used and a path-following call in a task-writable file', () => {
    const used = new Map([
      ['a.ts', ['mkdir', 'readFile']],
      ['b.ts', ['mkdir']],
    ]);
    const problems = problemsOf(used, {
      'a.ts': { names: ['mkdir'], kind: 'server', why: 'the server own files' },
      'b.ts': { names: ['mkdir', 'rm'], kind: 'task-writable', why: 'job dirs through beneath', kept: { rm: 'x' } },
      'c.ts': { names: ['open'], kind: 'server', why: 'gone' },
    });
    assert.equal(problems.length, 4, problems.join('\n'));
    assert.match(
      problems[0],
      /^a\.ts uses readFile from node:fs\(\/promises\), which fs-call-sites\.ts does not list for it: if this reaches/,
    );
    assert.match(problems[1], /lists rm for b\.ts, which no longer uses it/);
    assert.match(problems[2], /keeps rm for b\.ts, which does not use it/);
    assert.match(problems[3], /lists c\.ts, which does not exist/);
    const strict = problemsOf(new Map([['d.ts', ['mkdir', 'rm']]]), {
      'd.ts': { names: ['mkdir', 'rm'], kind: 'task-writable', why: 'job dirs through beneath' },
    });
    assert.deepEqual(strict.length, 1);
    assert.match(strict[0], /^d\.ts is marked task-writable in fs-call-sites\.ts and uses rm, which follows a path/);
  });

  it('lists every file of packages/server/src that uses node:fs, with exactly the names it uses', () => {
    const used = new Map<string, string[]>();
    for (const file of sourcesOf(SRC)) {
      if (file === OWNER) continue;
      const names = fsNamesOf(file, readFileSync(path.join(SRC, file), 'utf8'));
      if (names.length) used.set(file, names);
    }
    assert.ok(used.size > 20, `only ${used.size} files found in ${SRC}`);
    const problems = problemsOf(used, FS_CALL_SITES);
    assert.deepEqual(problems, [], `\n${problems.join('\n')}\n`);
  });
});
