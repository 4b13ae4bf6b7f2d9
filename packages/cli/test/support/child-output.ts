import type { ChildProcess } from 'node:child_process';

/** Resolves with the first match of `pattern` in the child's stdout, or rejects after timeoutMs. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms; output so far:\n${seen}`)), timeoutMs);
    child.stdout!.on('data', (c: Buffer) => {
      seen += c.toString();
      const m = seen.match(pattern);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}; output:\n${seen}`)));
  });
}
