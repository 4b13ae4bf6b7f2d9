import { Command, Option } from 'commander';
import type { CliContext } from '../../context.js';
import { integerIn } from '../../options/integer.js';
import { loadServer } from './load-server.js';

export interface ServerStartOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  role?: string;
}

/**
 * Runs the platform in this process until SIGTERM or SIGINT. The server reads its settings from
 * RUNYARD_* variables; the options here set those. The server package is loaded only here.
 */
export async function serverStart(opts: ServerStartOptions, ctx: CliContext): Promise<void> {
  const env: NodeJS.ProcessEnv = {
    ...ctx.env,
    ...(opts.port !== undefined && { RUNYARD_PORT: String(opts.port) }),
    ...(opts.host !== undefined && { RUNYARD_HOST: opts.host }),
    ...(opts.dataDir !== undefined && { RUNYARD_DATA_DIR: opts.dataDir }),
    ...(opts.role !== undefined && { RUNYARD_ROLE: opts.role }),
  };
  const { runUntilSignalled } = await loadServer();
  await runUntilSignalled(env);
}

export function serverStartCommand(ctx: CliContext): Command {
  return new Command('start')
    .description('run the Runyard platform here (first start prints the admin API key); settings also come from RUNYARD_* variables')
    .addOption(new Option('--port <port>', 'TCP port (RUNYARD_PORT, default 8080; 0 picks a free one)').argParser(integerIn(0, 65535)))
    .option('--host <address>', 'address to listen on (RUNYARD_HOST, default 127.0.0.1)')
    .option('--data-dir <dir>', 'data directory (RUNYARD_DATA_DIR, default ./.runyard-data)')
    .addOption(
      new Option('--role <role>', 'api: serve the API only; scheduler: run jobs only; all: both (RUNYARD_ROLE, default all)').choices([
        'all',
        'api',
        'scheduler',
      ]),
    )
    .action((opts: ServerStartOptions) => serverStart(opts, ctx));
}
