import { Command } from 'commander';
import { UsageError } from '../errors/cli-error.js';

/**
 * `runyard help job run`: the help of any command, however deep (commander's own help command
 * looks only one level down).
 */
export function helpCommand(): Command {
  return new Command('help')
    .description('show the help of a command, e.g. "runyard help job run"')
    .argument('[command...]', 'the command, as typed after runyard')
    .action((names: string[], _opts: unknown, self: Command) => {
      let target = self.parent!;
      const path = [target.name()];
      for (const name of names) {
        const next = target.commands.find((c) => c.name() === name || c.aliases().includes(name));
        if (!next) {
          const known = target.commands.map((c) => c.name()).join(', ');
          throw new UsageError(`"${name}" is not a command of "${path.join(' ')}"; choose from ${known}.`);
        }
        target = next;
        path.push(name);
      }
      target.outputHelp();
    });
}
