import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** The engine's own log in the job's logs folder: all that miniwdl writes, as toil's engine.log holds toil's. */
export const ENGINE_LOG = 'engine.log';

/**
 * A line of miniwdl's log (WDL/_util.py LOGGING_FORMAT, `%(asctime)s.%(msecs)03d %(name)s
 * %(levelname)s %(message)s`): `2026-12-07 10:00:00.123 wdl.w:hello.t:call-greet NOTICE done`.
 */
const LOG_LINE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (\S+) ([A-Z]+) /;
/** What miniwdl shows without --verbose: the workflow's and its calls' starts, ends and failures. */
const JOB_LOG_LEVELS = new Set(['NOTICE', 'WARNING', 'ERROR', 'CRITICAL']);

/**
 * Whether a line of miniwdl's stderr belongs in the job's log: what miniwdl prints at its default
 * level, and the calls' own stderr, which it relays (with --verbose) through each call's `stderr`
 * logger (PygtailLogger). Lines that continue a message (a traceback, a multi-line error) go where
 * the message went; `previous` is that choice, null before the first message.
 */
export function isJobLogLine(line: string, previous: boolean | null): boolean {
  const m = LOG_LINE.exec(line);
  if (!m) return previous ?? false;
  return JOB_LOG_LEVELS.has(m[2]!) || m[1]!.endsWith('.stderr');
}

/**
 * Splits miniwdl's output: everything into engine.log, and the lines a user reads (isJobLogLine)
 * of its stderr also into the job's log (this task's stdout).
 */
export class MiniwdlLogSplit {
  private readonly engine: WriteStream;
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private previous: boolean | null = null;

  constructor(logs: string) {
    this.engine = createWriteStream(path.join(logs, ENGINE_LOG), { flags: 'a' });
    // A log that cannot be written must not end the run: the job's log still has its lines.
    this.engine.on('error', (e) => process.stdout.write(`Runyard: ${ENGINE_LOG} could not be written: ${e.message}\n`));
  }

  /** miniwdl's stdout (the outputs' JSON at the end): the engine's. */
  stdout(chunk: Buffer): void {
    this.engine.write(chunk);
  }

  stderr(chunk: Buffer): void {
    this.engine.write(chunk);
    const lines = (this.partial + this.decoder.write(chunk)).split('\n');
    this.partial = lines.pop()!;
    this.relay(lines);
  }

  /** The last line without its newline, then closes engine.log. */
  end(): Promise<void> {
    const rest = this.partial + this.decoder.end();
    if (rest) this.relay([rest]);
    this.partial = '';
    return new Promise((resolve) => this.engine.end(resolve));
  }

  private relay(lines: string[]): void {
    let out = '';
    for (const line of lines) {
      this.previous = isJobLogLine(line, this.previous);
      if (this.previous) out += `${line}\n`;
    }
    if (out) process.stdout.write(out);
  }
}
