import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { CliContext } from '../context.js';
import { CliError } from '../errors/cli-error.js';
import { EXIT } from '../errors/exit-codes.js';

/** Asks questions one by one; an empty answer means "keep what is there". */
export interface Prompter {
  /** True when a person answers (a terminal); false when answers come from a pipe. */
  readonly interactive: boolean;
  /** With secret, a terminal does not echo what is typed. */
  ask(question: string, options?: { secret?: boolean }): Promise<string>;
  /** Tells the person something between questions (ignored for piped answers). */
  say(text: string): void;
  close(): void;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Answers read up front from stdin, one line per question; questions past the last line get Enter. */
async function pipedPrompter(ctx: CliContext): Promise<Prompter> {
  const lines = (await readAll(ctx.stdin)).split(/\r?\n/);
  return {
    interactive: false,
    async ask(question) {
      ctx.stderr.write(`${question}\n`);
      return (lines.shift() ?? '').trim();
    },
    say() {},
    close() {},
  };
}

/**
 * A person at a terminal: questions on stderr; Ctrl-C or Ctrl-D cancels. Lines typed (or pasted)
 * ahead of their question are queued, not lost.
 */
function terminalPrompter(ctx: CliContext): Prompter {
  let muted = false;
  // readline echoes every keystroke through its output; muting it hides a secret as it is typed.
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) ctx.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: ctx.stdin, output, terminal: true });
  const queued: string[] = [];
  let waiting: { resolve: (answer: string) => void; reject: (e: Error) => void } | undefined;
  let closed = false;
  const cancelled = () => new CliError('Cancelled; nothing was saved.', EXIT.USAGE);
  rl.on('line', (line) => {
    if (muted) {
      muted = false;
      ctx.stderr.write('\n');
    }
    const w = waiting;
    waiting = undefined;
    if (w) w.resolve(line.trim());
    else queued.push(line.trim());
  });
  rl.on('SIGINT', () => rl.close());
  rl.on('close', () => {
    closed = true;
    if (waiting) ctx.stderr.write('\n');
    waiting?.reject(cancelled());
    waiting = undefined;
  });
  return {
    interactive: true,
    ask(question, options) {
      if (queued.length) {
        ctx.stderr.write(`${question}\n`);
        return Promise.resolve(queued.shift()!);
      }
      if (closed) return Promise.reject(cancelled());
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        rl.setPrompt(question);
        if (options?.secret) {
          ctx.stderr.write(question);
          muted = true;
        } else {
          rl.prompt();
        }
      });
    },
    say(text) {
      ctx.stderr.write(`${text}\n`);
    },
    close() {
      waiting = undefined;
      rl.close();
    },
  };
}

export async function openPrompter(ctx: CliContext): Promise<Prompter> {
  return ctx.stdin.isTTY ? terminalPrompter(ctx) : pipedPrompter(ctx);
}
