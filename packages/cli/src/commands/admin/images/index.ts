import { Command } from 'commander';
import type { CliContext } from '../../../context.js';
import { imagesListCommand } from './list.js';
import { imagesPruneCommand } from './prune.js';

export function imagesNoun(ctx: CliContext): Command {
  return new Command('images')
    .description("the image cache of container jobs, on the server's host: list it, prune what no job uses")
    .addCommand(imagesListCommand(ctx))
    .addCommand(imagesPruneCommand(ctx));
}
