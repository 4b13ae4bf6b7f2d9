#!/usr/bin/env node
import { CommanderError } from 'commander';
import { processContext } from './context.js';
import { describeError } from './errors/describe-error.js';
import { EXIT } from './errors/exit-codes.js';
import { buildProgram } from './program.js';

/** Parses the command line, runs the command, and turns what it threw into a line and an exit code. */
async function main(): Promise<void> {
  // A reader that stops early (`runyard job list | head`) is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  const ctx = processContext();
  try {
    await buildProgram(ctx).parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander has already printed its message, or the help or version that was asked for (exitCode 0).
      process.exitCode = e.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
      return;
    }
    const report = await describeError(e);
    ctx.stderr.write(`Error: ${report.message}\n`);
    process.exitCode = report.exitCode;
  }
}

// Not a top-level await: the build bundles this file as a script (scripts/bundle-cli.mjs).
void main();
