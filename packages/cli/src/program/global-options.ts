import { Option, type Command } from 'commander';
import { UsageError } from '../errors/cli-error.js';

/** Options a person may give before the subcommand as well as after it, as with kubectl and gh. */
const GLOBAL = new WeakSet<Option>();

/** Marks an option as global: its value given on a parent command reaches the command that runs. */
export function markGlobal(option: Option): Option {
  GLOBAL.add(option);
  return option;
}

/** `--no-color`, which every command takes. */
export function noColorOption(): Option {
  return markGlobal(new Option('--no-color', 'no bold or colour in the output (also NO_COLOR=1 or TERM=dumb)'));
}

const commandPath = (cmd: Command) => {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

/**
 * Gives the command that runs the global options set on its parents (`runyard --profile p job
 * list`), unless it was given the same option itself. A parent's option that the command does not
 * take is a usage error rather than silently ignored.
 */
export function inheritGlobalOptions(leaf: Command): void {
  for (let up = leaf.parent; up; up = up.parent) {
    for (const option of up.options) {
      const key = option.attributeName();
      if (!GLOBAL.has(option) || up.getOptionValueSource(key) !== 'cli') continue;
      const own = leaf.options.find((o) => GLOBAL.has(o) && o.attributeName() === key);
      if (!own) throw new UsageError(`${option.long} does not apply to "runyard ${commandPath(leaf)}".`);
      if (leaf.getOptionValueSource(key) === 'cli') continue;
      leaf.setOptionValueWithSource(key, up.getOptionValue(key), 'cli');
    }
  }
}
