import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors/cli-error.js';
import { openPrompter } from '../../prompt/prompter.js';

export interface DockerLoginOptions extends ConnectionFlags {
  registry: string;
  username: string;
}

/**
 * Links the user's account at a docker registry: the password (or access token) is read from stdin
 * (asked without echo on a terminal), never from the command line; the server keeps it sealed and
 * never shows it. The images of the user's jobs at that registry are then pulled with it.
 */
export async function dockerLogin(opts: DockerLoginOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const prompter = await openPrompter(ctx);
  let password: string;
  try {
    password = await prompter.ask(`Password (or access token) for ${opts.username} at ${opts.registry}:`, { secret: true });
  } finally {
    prompter.close();
  }
  if (!password)
    throw new UsageError('No password given: type it when asked, or pipe it on stdin (echo "$TOKEN" | runyard user docker-login ...).');
  const account = await withClient(conn, (client) =>
    client.linkDockerRegistry({ registry: opts.registry, username: opts.username, password }),
  );
  ctx.stdout.write(
    `Linked ${account.username} at ${account.registry}: the images of your jobs at ${account.registry} are pulled with it.\n`,
  );
}

export async function dockerLogout(opts: ConnectionFlags & { registry: string }, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  await withClient(conn, (client) => client.unlinkDockerRegistry(opts.registry));
  ctx.stdout.write(`Unlinked your account at ${opts.registry}.\n`);
}

export function userNoun(ctx: CliContext): Command {
  const login = new Command('docker-login')
    .description('link your account at a docker registry (password from stdin) for jobs that use private images')
    .requiredOption('--registry <host>', 'the registry, e.g. docker.io or ghcr.io')
    .requiredOption('--username <name>', 'your user name there');
  addConnectionOptions(login, { workspace: false });
  const logout = new Command('docker-logout')
    .description('unlink your account at a docker registry')
    .requiredOption('--registry <host>', 'the registry');
  addConnectionOptions(logout, { workspace: false });
  return new Command('user')
    .description('your own user: docker registry accounts')
    .addCommand(login.action((opts: DockerLoginOptions) => dockerLogin(opts, ctx)))
    .addCommand(logout.action((opts: ConnectionFlags & { registry: string }) => dockerLogout(opts, ctx)));
}
