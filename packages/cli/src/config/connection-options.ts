import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { markGlobal } from '../program/global-options.js';

const GROUP = 'Connection options:';

function existingFile(value: string): string {
  if (!existsSync(value) || !statSync(value).isFile()) throw new InvalidArgumentError(`The file "${value}" does not exist.`);
  return path.resolve(value);
}

/**
 * The options every command that talks to the server takes, after the subcommand as in
 * cloudos-cli, or before it (they are global). Admin commands leave out --workspace-id (they are
 * not workspace routes).
 */
export function addConnectionOptions(cmd: Command, { workspace, hidden = false }: { workspace: boolean; hidden?: boolean }): Command {
  const options = [
    new Option('-k, --apikey <key>', 'API key (env RUNYARD_APIKEY)'),
    new Option('-c, --platform-url <url>', 'Runyard server URL (env RUNYARD_PLATFORM_URL)'),
    new Option('--cloudos-url <url>', 'alias of --platform-url').hideHelp(),
    ...(workspace ? [new Option('--workspace-id <id>', 'workspace id (env RUNYARD_WORKSPACE_ID)')] : []),
    new Option('--profile <name>', 'profile to read settings from (default: the default profile)'),
    new Option('--disable-ssl-verification', 'do not verify the server TLS certificate'),
    new Option('--ssl-cert <file>', 'CA certificate file to verify the server with').argParser(existingFile),
  ];
  for (const o of options) cmd.addOption(markGlobal(o.helpGroup(GROUP).hideHelp(hidden || o.hidden)));
  return cmd;
}
