import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { sessionCreateCommand } from './create.js';
import { sessionListCommand } from './list.js';
import { sessionOpenCommand } from './open.js';
import { sessionPauseCommand } from './pause.js';
import { sessionResumeCommand } from './resume.js';
import { sessionStatusCommand } from './status.js';

/** Interactive sessions (CloudOS's interactive analysis): Jupyter, VS Code, RStudio, Spark in the browser. */
export function interactiveSessionNoun(ctx: CliContext): Command {
  return new Command('interactive-session')
    .description('interactive sessions (Jupyter, VS Code, RStudio, Spark): list, create, status, pause, resume, open')
    .addCommand(sessionListCommand(ctx))
    .addCommand(sessionCreateCommand(ctx))
    .addCommand(sessionStatusCommand(ctx))
    .addCommand(sessionPauseCommand(ctx))
    .addCommand(sessionResumeCommand(ctx))
    .addCommand(sessionOpenCommand(ctx));
}
