/**
 * The WDL 1.0 subset the Cromwell fixture runs (see ../cromwell-fixture.ts): `version 1.0`; tasks
 * with `input {}`, private declarations, `command <<< >>>` (or `command { }`) with `~{expr}`
 * placeholders (and their `sep=` option), `output {}` and a skipped `runtime {}`/`meta {}`; one workflow with `input {}`,
 * declarations, `call t [as a] [{ input: x = expr, ... }]` and `output {}`. Expressions: string,
 * number and boolean literals (strings with placeholders), array literals, `a` and `call.output`
 * references, `+`, and function calls. Anything else is a parse error, which the fixture reports
 * as Cromwell reports a workflow it cannot read (the workflow fails).
 */

export type Expr =
  | { k: 'lit'; v: string | number | boolean }
  | { k: 'str'; parts: (string | Expr)[] }
  | { k: 'ref'; path: string[] }
  | { k: 'fn'; name: string; args: Expr[] }
  | { k: 'array'; items: Expr[] }
  | { k: 'add'; a: Expr; b: Expr };

export interface Decl {
  /** As written, without `?`: `File`, `Array[File]`. */
  type: string;
  optional: boolean;
  name: string;
  expr: Expr | null;
}

export interface Task {
  name: string;
  inputs: Decl[];
  privates: Decl[];
  /** The command with its placeholders (text and expressions), before dedenting. */
  command: (string | Expr)[];
  outputs: Decl[];
  /** The task's text (its call cache hash covers it). */
  source: string;
}

export interface Call {
  task: string;
  alias: string;
  inputs: { name: string; expr: Expr }[];
}

export interface Workflow {
  name: string;
  inputs: Decl[];
  body: ({ kind: 'call'; call: Call } | { kind: 'decl'; decl: Decl })[];
  outputs: Decl[];
}

export interface Document {
  tasks: Map<string, Task>;
  workflow: Workflow;
}

export class WdlSyntaxError extends Error {}

type Token = { t: 'id' | 'num' | 'str' | 'punct' | 'command' | 'eof'; v: string; pos: number };

const PUNCT = [
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  '=',
  ':',
  ',',
  '.',
  '?',
  '+',
  '-',
  '*',
  '/',
  '<',
  '>',
  '!',
];

function lineOf(text: string, pos: number): number {
  return text.slice(0, pos).split('\n').length;
}

/** Tokens of a WDL text; a command's body is one token (its raw text). */
function lex(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const fail = (msg: string): never => {
    throw new WdlSyntaxError(`line ${lineOf(text, i)}: ${msg}`);
  };
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))!;
      out.push({ t: 'id', v: m[0], pos: i });
      i += m[0].length;
      if (m[0] === 'command' && out.at(-2)?.v !== '.') {
        // The body, raw: <<< ... >>> or { ... } (braces balanced).
        while (/\s/.test(text[i] ?? '')) i++;
        if (text.startsWith('<<<', i)) {
          const end = text.indexOf('>>>', i + 3);
          if (end < 0) fail('command <<< without >>>');
          out.push({ t: 'command', v: text.slice(i + 3, end), pos: i });
          i = end + 3;
        } else if (text[i] === '{') {
          let depth = 0;
          const start = i;
          for (; i < text.length; i++) {
            if (text[i] === '{') depth++;
            else if (text[i] === '}' && --depth === 0) break;
          }
          if (depth !== 0) fail('command { without its }');
          out.push({ t: 'command', v: text.slice(start + 1, i), pos: start });
          i++;
        } else fail('command without <<< or {');
      }
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(text.slice(i))!;
      out.push({ t: 'num', v: m[0], pos: i });
      i += m[0].length;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let v = '';
      for (; j < text.length && text[j] !== c; j++) {
        if (text[j] === '\n') fail('a string does not end on its line');
        if (text[j] === '\\') {
          const e = text[++j];
          v += e === 'n' ? '\n' : e === 't' ? '\t' : e;
        } else v += text[j];
      }
      if (j >= text.length) fail('a string does not end');
      out.push({ t: 'str', v, pos: i });
      i = j + 1;
    } else {
      const p = PUNCT.find((x) => text.startsWith(x, i));
      if (!p) fail(`unexpected character ${JSON.stringify(c)}`);
      out.push({ t: 'punct', v: p!, pos: i });
      i += p!.length;
    }
  }
  out.push({ t: 'eof', v: '', pos: text.length });
  return out;
}

/** A placeholder's expression; WDL 1.0's `sep="x"` option becomes a call of the fixture's own `sep` ("x", array). */
function placeholder(text: string): Expr {
  const option = /^\s*sep\s*=\s*(["'])(.*?)\1\s+([\s\S]+)$/.exec(text);
  if (!option) return parseExpression(text);
  return { k: 'fn', name: 'sep', args: [{ k: 'lit', v: option[2]! }, parseExpression(option[3]!)] };
}

/** Splits text on placeholders (`~{expr}`; also `${expr}` where allowed) into text and parsed expressions. */
export function placeholders(text: string, dollar: boolean): (string | Expr)[] {
  const parts: (string | Expr)[] = [];
  const re = dollar ? /[~$]\{/g : /~\{/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let depth = 1;
    let j = m.index + 2;
    for (; j < text.length && depth > 0; j++) {
      if (text[j] === '{') depth++;
      else if (text[j] === '}') depth--;
    }
    if (depth > 0) throw new WdlSyntaxError(`a placeholder does not end: ${text.slice(m.index, m.index + 30)}`);
    parts.push(text.slice(last, m.index));
    parts.push(placeholder(text.slice(m.index + 2, j - 1)));
    last = j;
    re.lastIndex = j;
  }
  parts.push(text.slice(last));
  return parts.filter((p) => p !== '');
}

class Parser {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly text: string,
  ) {}

  peek(n = 0): Token {
    return this.tokens[Math.min(this.i + n, this.tokens.length - 1)]!;
  }
  next(): Token {
    return this.tokens[this.i++]!;
  }
  fail(msg: string): never {
    throw new WdlSyntaxError(
      `line ${lineOf(this.text, this.peek().pos)}: ${msg} (found ${JSON.stringify(this.peek().v || 'end of file')})`,
    );
  }
  is(v: string): boolean {
    const t = this.peek();
    return (t.t === 'punct' || t.t === 'id') && t.v === v;
  }
  expect(v: string): Token {
    if (!this.is(v)) this.fail(`expected ${JSON.stringify(v)}`);
    return this.next();
  }
  ident(): string {
    if (this.peek().t !== 'id') this.fail('expected a name');
    return this.next().v;
  }

  document(): Document {
    this.expect('version');
    const version = this.next().v;
    if (version !== '1.0') this.fail(`version ${version} is not supported by this fixture (1.0 only)`);
    const tasks = new Map<string, Task>();
    let workflow: Workflow | null = null;
    while (this.peek().t !== 'eof') {
      if (this.is('task')) {
        const task = this.task();
        tasks.set(task.name, task);
      } else if (this.is('workflow')) {
        if (workflow) this.fail('a second workflow');
        workflow = this.workflow();
      } else if (this.is('import')) this.fail('imports are not supported by this fixture');
      else this.fail('expected task or workflow');
    }
    if (!workflow) throw new WdlSyntaxError('the document has no workflow');
    return { tasks, workflow };
  }

  /** `{ ... }` skipped (runtime, meta, parameter_meta). */
  skipBlock(): void {
    this.expect('{');
    for (let depth = 1; depth > 0;) {
      const t = this.next();
      if (t.t === 'eof') this.fail('a block does not end');
      if (t.t === 'punct' && t.v === '{') depth++;
      if (t.t === 'punct' && t.v === '}') depth--;
    }
  }

  decls(): Decl[] {
    this.expect('{');
    const out: Decl[] = [];
    while (!this.is('}')) out.push(this.decl());
    this.expect('}');
    return out;
  }

  type(): string {
    let type = this.ident();
    if (this.is('[')) {
      this.next();
      const inner = [this.type()];
      while (this.is(',')) {
        this.next();
        inner.push(this.type());
      }
      this.expect(']');
      type += `[${inner.join(',')}]`;
    }
    if (this.is('+')) type += this.next().v;
    return type;
  }

  decl(): Decl {
    const type = this.type();
    const optional = this.is('?');
    if (optional) this.next();
    const name = this.ident();
    let expr: Expr | null = null;
    if (this.is('=')) {
      this.next();
      expr = this.expression();
    }
    return { type, optional, name, expr };
  }

  task(): Task {
    const start = this.expect('task').pos;
    const name = this.ident();
    const task: Task = { name, inputs: [], privates: [], command: [], outputs: [], source: '' };
    this.expect('{');
    while (!this.is('}')) {
      if (this.is('input')) {
        this.next();
        task.inputs = this.decls();
      } else if (this.is('output')) {
        this.next();
        task.outputs = this.decls();
      } else if (this.is('command')) {
        this.next();
        const body = this.next();
        if (body.t !== 'command') this.fail('expected a command body');
        const heredoc = this.text.startsWith('<<<', body.pos);
        task.command = placeholders(body.v, !heredoc);
      } else if (this.is('runtime') || this.is('meta') || this.is('parameter_meta')) {
        this.next();
        this.skipBlock();
      } else task.privates.push(this.decl());
    }
    const end = this.expect('}').pos;
    task.source = this.text.slice(start, end + 1);
    return task;
  }

  workflow(): Workflow {
    this.expect('workflow');
    const wf: Workflow = { name: this.ident(), inputs: [], body: [], outputs: [] };
    this.expect('{');
    while (!this.is('}')) {
      if (this.is('input')) {
        this.next();
        wf.inputs = this.decls();
      } else if (this.is('output')) {
        this.next();
        wf.outputs = this.decls();
      } else if (this.is('call')) {
        wf.body.push({ kind: 'call', call: this.call() });
      } else if (this.is('meta') || this.is('parameter_meta')) {
        this.next();
        this.skipBlock();
      } else if (this.is('scatter') || this.is('if')) this.fail(`${this.peek().v} is not supported by this fixture`);
      else wf.body.push({ kind: 'decl', decl: this.decl() });
    }
    this.expect('}');
    return wf;
  }

  call(): Call {
    this.expect('call');
    const task = this.ident();
    if (this.is('.')) this.fail('calls of imported tasks are not supported by this fixture');
    let alias = task;
    if (this.is('as')) {
      this.next();
      alias = this.ident();
    }
    const inputs: Call['inputs'] = [];
    if (this.is('{')) {
      this.next();
      if (this.is('input')) {
        this.next();
        this.expect(':');
      }
      while (!this.is('}')) {
        const name = this.ident();
        this.expect('=');
        inputs.push({ name, expr: this.expression() });
        if (this.is(',')) this.next();
      }
      this.expect('}');
    }
    return { task, alias, inputs };
  }

  expression(): Expr {
    let e = this.primary();
    while (this.is('+')) {
      this.next();
      e = { k: 'add', a: e, b: this.primary() };
    }
    return e;
  }

  primary(): Expr {
    const t = this.peek();
    if (t.t === 'str') {
      this.next();
      const parts = placeholders(t.v, true);
      return parts.every((p) => typeof p === 'string') ? { k: 'lit', v: parts.join('') } : { k: 'str', parts };
    }
    if (t.t === 'num') {
      this.next();
      return { k: 'lit', v: Number(t.v) };
    }
    if (t.t === 'punct' && t.v === '-' && this.peek(1).t === 'num') {
      this.next();
      return { k: 'lit', v: -Number(this.next().v) };
    }
    if (t.t === 'punct' && t.v === '[') {
      this.next();
      const items: Expr[] = [];
      while (!this.is(']')) {
        items.push(this.expression());
        if (this.is(',')) this.next();
      }
      this.expect(']');
      return { k: 'array', items };
    }
    if (t.t === 'punct' && t.v === '(') {
      this.next();
      const e = this.expression();
      this.expect(')');
      return e;
    }
    if (t.t === 'id') {
      this.next();
      if (t.v === 'true' || t.v === 'false') return { k: 'lit', v: t.v === 'true' };
      if (this.is('(')) {
        this.next();
        const args: Expr[] = [];
        while (!this.is(')')) {
          args.push(this.expression());
          if (this.is(',')) this.next();
        }
        this.expect(')');
        return { k: 'fn', name: t.v, args };
      }
      const path = [t.v];
      while (this.is('.')) {
        this.next();
        path.push(this.ident());
      }
      return { k: 'ref', path };
    }
    return this.fail('expected an expression');
  }
}

export function parseExpression(text: string): Expr {
  const p = new Parser(lex(text), text);
  const e = p.expression();
  if (p.peek().t !== 'eof') p.fail('unexpected text after an expression');
  return e;
}

export function parseWdl(text: string): Document {
  return new Parser(lex(text), text).document();
}
