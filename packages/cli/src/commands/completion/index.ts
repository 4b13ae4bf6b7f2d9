import { Argument, Command } from 'commander';
import type { CliContext } from '../../context.js';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionTree } from './tree.js';
import { zshScript } from './zsh.js';

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

/** `runyard completion bash|zsh|fish`: a completion script made from the command tree as it is now. */
export function completionCommand(ctx: CliContext): Command {
  return new Command('completion')
    .description('print a shell completion script (commands, subcommands, options); see the examples to install it')
    .addArgument(new Argument('<shell>', 'the shell').choices(Object.keys(SCRIPTS)))
    .action((shell: keyof typeof SCRIPTS, _opts: unknown, self: Command) => {
      let root = self;
      while (root.parent) root = root.parent;
      ctx.stdout.write(SCRIPTS[shell](completionTree(root)));
    });
}
