import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { apiKeyNoun } from './apikey/index.js';
import { engineTokenNoun } from './engine-token/index.js';
import { hpcNoun } from './hpc/index.js';
import { imagesNoun } from './images/index.js';
import { memberNoun } from './member/index.js';
import { userNoun } from './user/index.js';
import { workspaceNoun } from './workspace/index.js';

export function adminNoun(ctx: CliContext): Command {
  return new Command('admin')
    .description(
      "administration: users, workspaces, memberships, API keys, HPC clusters, the image cache (needs an administrator key); a workspace's engine token (needs its admin role)",
    )
    .addCommand(userNoun(ctx))
    .addCommand(workspaceNoun(ctx))
    .addCommand(memberNoun(ctx))
    .addCommand(apiKeyNoun(ctx))
    .addCommand(hpcNoun(ctx))
    .addCommand(imagesNoun(ctx))
    .addCommand(engineTokenNoun(ctx));
}
