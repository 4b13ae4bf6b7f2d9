import { Command } from 'commander';
import { adminNoun } from './commands/admin/index.js';
import { bashNoun } from './commands/bash/index.js';
import { completionCommand } from './commands/completion/index.js';
import { configureNoun } from './commands/configure/index.js';
import { cromwellNoun } from './commands/cromwell/index.js';
import { datasetsNoun } from './commands/datasets/index.js';
import { helpCommand } from './commands/help.js';
import { interactiveSessionNoun } from './commands/interactive-session/index.js';
import { jobNoun } from './commands/job/index.js';
import { linkCommand } from './commands/link/index.js';
import { projectNoun } from './commands/project/index.js';
import { queueNoun } from './commands/queue/index.js';
import { instanceTypesNoun } from './commands/instance-types/index.js';
import { serverNoun } from './commands/server/index.js';
import { storageNoun } from './commands/storage/index.js';
import { workflowNoun } from './commands/workflow/index.js';
import { addConnectionOptions } from './config/connection-options.js';
import type { CliContext } from './context.js';
import { inheritGlobalOptions, noColorOption } from './program/global-options.js';
import { addExamples, configureHelpLayout } from './program/help-layout.js';
import { checkRequiredOptions, deferRequiredOptions } from './program/required-options.js';
import { cliVersion } from './version.js';
import { userNoun } from './commands/user/docker-login.js';

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
    });
  configureHelpLayout(program, ctx);
  addConnectionOptions(program, { workspace: true });
  program.addOption(noColorOption());
  program
    .addCommand(configureNoun(ctx))
    .addCommand(projectNoun(ctx))
    .addCommand(workflowNoun(ctx))
    .addCommand(jobNoun(ctx))
    .addCommand(bashNoun(ctx))
    .addCommand(cromwellNoun(ctx))
    .addCommand(interactiveSessionNoun(ctx))
    .addCommand(linkCommand(ctx))
    .addCommand(queueNoun(ctx))
    .addCommand(instanceTypesNoun(ctx))
    .addCommand(datasetsNoun(ctx))
    .addCommand(storageNoun(ctx))
    .addCommand(userNoun(ctx))
    .addCommand(adminNoun(ctx))
    .addCommand(serverNoun(ctx))
    .addCommand(completionCommand(ctx))
    .addCommand(helpCommand());
  const all = [program, ...descendants(program)];
  for (const cmd of all.slice(1)) {
    // Commands built on their own (new Command) do not inherit the root's settings until told to.
    cmd.copyInheritedSettings(program);
    // Global options are taken between a group and its subcommand too (`runyard job --profile p list`);
    // the root's help lists them, so the groups' help does not repeat them. (configure is a command
    // with subcommands and options of its own.)
    if (cmd.commands.length && !cmd.options.length) addConnectionOptions(cmd, { workspace: true, hidden: true });
    else cmd.addOption(noColorOption());
  }
  deferRequiredOptions(all);
  addExamples(all, ctx);
  program.addHelpText('after', '\nExit codes: 0 ok, 1 error, 2 usage, 4 authentication;\n3: a followed job (--follow) was aborted.');
  program.hook('preAction', (_root, leaf) => {
    inheritGlobalOptions(leaf);
    checkRequiredOptions(leaf);
    if (leaf.getOptionValue('color') === false) ctx.noColor = true;
  });
  return program;
}
