import { Command } from 'commander';
import { adminNoun } from './commands/admin/index.js';
import { bashNoun } from './commands/bash/index.js';
import { configureNoun } from './commands/configure/index.js';
import { datasetsNoun } from './commands/datasets/index.js';
import { jobNoun } from './commands/job/index.js';
import { projectNoun } from './commands/project/index.js';
import { queueNoun } from './commands/queue/index.js';
import { serverNoun } from './commands/server/index.js';
import { storageNoun } from './commands/storage/index.js';
import { workflowNoun } from './commands/workflow/index.js';
import type { CliContext } from './context.js';
import { cliVersion } from './version.js';

function* descendants(cmd: Command): Generator<Command> {
  for (const sub of cmd.commands) {
    yield sub;
    yield* descendants(sub);
  }
}

/** The `runyard` command tree. Errors are thrown (exitOverride), never exit the process here. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('runyard')
    .description('Runyard: a self-hostable, CloudOS-compatible analysis platform')
    .version(cliVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .enablePositionalOptions()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
      // One style for every error line: `Error: ...`.
      outputError: (s, write) => write(s.replace(/^error:/, 'Error:')),
    })
    .addHelpText('after', '\nExit codes: 0 ok, 1 error, 2 usage, 4 authentication.');
  program
    .addCommand(configureNoun(ctx))
    .addCommand(projectNoun(ctx))
    .addCommand(workflowNoun(ctx))
    .addCommand(jobNoun(ctx))
    .addCommand(bashNoun(ctx))
    .addCommand(queueNoun(ctx))
    .addCommand(datasetsNoun(ctx))
    .addCommand(storageNoun(ctx))
    .addCommand(adminNoun(ctx))
    .addCommand(serverNoun(ctx));
  // Commands built on their own (new Command) do not inherit the root's settings until told to.
  for (const sub of descendants(program)) sub.copyInheritedSettings(program);
  return program;
}
