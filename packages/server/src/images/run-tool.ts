import { spawn } from 'node:child_process';
import { ImagePullError } from './pull-error.js';

export interface ToolResult {
  code: number;
  /** Raw bytes: a manifest's digest is the hash of exactly what the registry sent. */
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs skopeo or umoci with an argument array and no shell, so that no image name or user value is
 * ever read as shell text. Each stdout line goes to onLine as it comes (progress for the job's log).
 */
export function runTool(
  program: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'], shell: false });
    const out: Buffer[] = [];
    let err = '';
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out.push(chunk);
      if (!onLine) return;
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line.trim()) onLine(line.trim());
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'ENOENT'
          ? new ImagePullError('failed', `${program} is not installed on the server (Debian: apt-get install ${program.split('/').pop()})`)
          : e,
      ),
    );
    child.on('close', (code, signal) => {
      if (onLine && partial.trim()) onLine(partial.trim());
      resolve({ code: code ?? 128, stdout: Buffer.concat(out), stderr: signal ? `${err}\nkilled by ${signal}` : err });
    });
  });
}
