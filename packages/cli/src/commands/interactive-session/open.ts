import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { loadSdk } from '../../sdk.js';
import { addSessionIdArgument, sessionIdOf, statusWithWire, withSessionClient, type SessionIdFlags } from './common.js';

export interface SessionOpenOptions extends ConnectionFlags, SessionIdFlags {
  browser?: boolean;
  web?: boolean;
}

/** The executable `name` on the PATH, or undefined. */
function onPath(name: string, pathVar: string | undefined): string | undefined {
  if (name.includes('/')) return name;
  for (const dir of (pathVar ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The program that opens a URL in a browser: $BROWSER (as gh honours it), else the desktop's
 * opener (xdg-open; open on macOS). Undefined when there is none.
 */
function browserCommand(ctx: CliContext): { file: string; args: string[] } | undefined {
  const fromEnv = ctx.env.BROWSER?.trim();
  if (fromEnv) {
    const [program, ...args] = fromEnv.split(/\s+/);
    const file = onPath(program, ctx.env.PATH);
    return file ? { file, args } : undefined;
  }
  const file = onPath(process.platform === 'darwin' ? 'open' : 'xdg-open', ctx.env.PATH);
  return file ? { file, args: [] } : undefined;
}

/** Starts the opener on the URL and leaves it running on its own. */
function launch(command: { file: string; args: string[] }, url: string, ctx: CliContext): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, [...command.args, url], { stdio: 'ignore', detached: true, env: ctx.env });
    child.once('error', (e) => reject(new CliError(`Could not run ${command.file}: ${e.message}. Open the URL above in your browser.`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

/**
 * Asks the server for a link to the session's web UI (a launch token for you, good for a minute and
 * taken once: an absolute URL on the sessions' own origin, or a path on the platform) and prints
 * the full URL; with --web (or --browser) opens it in a browser. The API key is never part of it.
 */
export async function sessionOpen(arg: string | undefined, opts: SessionOpenOptions, ctx: CliContext): Promise<void> {
  const id = sessionIdOf(arg, opts);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const { ConflictError } = await loadSdk();
  const link = await withSessionClient(conn, id, async (client) => {
    try {
      return await client.getInteractiveSessionUiLink(id, conn.workspaceId);
    } catch (e) {
      if (!(e instanceof ConflictError)) throw e;
      // Not running: say what it is, and what to do.
      const session = await client.getInteractiveSession(id, conn.workspaceId);
      const what =
        session.status === 'aborted'
          ? `Resume it first: "runyard interactive-session resume ${id} --watch".`
          : session.status === 'terminated' || session.status === 'aborting'
            ? 'Only a running session can be opened.'
            : `It is starting: "runyard interactive-session status ${id} --watch" waits until it runs.`;
      throw new CliError(`Session ${id} is ${statusWithWire(session.status)}, not running. ${what}`);
    }
  });
  // Sessions on an origin of their own get an absolute URL; on the platform's, a path.
  const url = /^https?:\/\//i.test(link.url) ? link.url : `${conn.platformUrl}${link.url}`;
  ctx.stdout.write(`${url}\n`);
  if (!opts.web && !opts.browser) {
    ctx.stderr.write(`Open this URL in your browser before ${link.expiresAt}: it works once, and only for you.\n`);
    return;
  }
  const command = browserCommand(ctx);
  if (!command) {
    throw new CliError('No browser to open it with: xdg-open is not installed and BROWSER is not set. Open the URL above in your browser.');
  }
  ctx.stderr.write(`Opening the session in your browser (${path.basename(command.file)}).\n`);
  await launch(command, url, ctx);
}

export function sessionOpenCommand(ctx: CliContext): Command {
  const cmd = new Command('open').description("print the URL of a running session's web UI (Jupyter, ...), or open it in a browser");
  addSessionIdArgument(cmd);
  cmd.option('-w, --web', 'open it in the browser (BROWSER, else xdg-open)').option('--browser', 'the same as --web');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((arg: string | undefined, opts: SessionOpenOptions) => sessionOpen(arg, opts, ctx));
}
