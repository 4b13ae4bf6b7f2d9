import type { Command, Option } from 'commander';

const REQUIRED = new WeakSet<Option>();

/** True for an option the command cannot run without (shown as such in the help). */
export function isRequired(option: Option): boolean {
  return REQUIRED.has(option);
}

/**
 * Takes the required options of the tree out of commander's own check, which runs before the
 * unknown-option check: `--jobid x` must be reported as a typo of --job-id, not as --job-id missing.
 * checkRequiredOptions then runs once the command line is known to hold no unknown option.
 */
export function deferRequiredOptions(commands: Iterable<Command>): void {
  for (const cmd of commands) {
    for (const option of cmd.options) {
      if (!option.mandatory) continue;
      REQUIRED.add(option);
      option.makeOptionMandatory(false);
    }
  }
}

export function checkRequiredOptions(cmd: Command): void {
  for (const option of cmd.options) {
    if (isRequired(option) && cmd.getOptionValue(option.attributeName()) === undefined) {
      cmd.error(`error: required option '${option.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
    }
  }
}
