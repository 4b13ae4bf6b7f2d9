import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { datasetsCpCommand } from './cp.js';
import { datasetsDownloadCommand } from './download.js';
import { datasetsLinkCommand } from './link.js';
import { datasetsLsCommand } from './ls.js';
import { datasetsMkdirCommand } from './mkdir.js';
import { datasetsMvCommand } from './mv.js';
import { datasetsRenameCommand } from './rename.js';
import { datasetsRmCommand } from './rm.js';
import { datasetsUploadCommand } from './upload.js';

export function datasetsNoun(ctx: CliContext): Command {
  return new Command('datasets')
    .description(
      "a project's File Explorer (Data, Analyses Results, Cohorts): list, move, rename, copy, create, delete, upload, download, link",
    )
    .addCommand(datasetsLsCommand(ctx))
    .addCommand(datasetsMvCommand(ctx))
    .addCommand(datasetsRenameCommand(ctx))
    .addCommand(datasetsCpCommand(ctx))
    .addCommand(datasetsMkdirCommand(ctx))
    .addCommand(datasetsRmCommand(ctx))
    .addCommand(datasetsUploadCommand(ctx))
    .addCommand(datasetsDownloadCommand(ctx))
    .addCommand(datasetsLinkCommand(ctx));
}
