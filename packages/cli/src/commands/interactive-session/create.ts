import type { SessionCreateBody, SessionDataItem } from '@runyard/client';
import { Command, InvalidArgumentError, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import { fromProfile } from '../../config/profile-default.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors/cli-error.js';
import { integerIn } from '../../options/integer.js';
import { objectId } from '../../options/object-id.js';
import { itemLines, planItems, reportItemMounts, resolveItems } from './items.js';
import {
  addItemOptions,
  addShutdownOptions,
  addWatchOptions,
  checkInstanceType,
  costLimitParser,
  SESSION_PLATFORMS,
  sessionUrl,
  shutdownDate,
  STORAGE_MAX_GB,
  STORAGE_MIN_GB,
  typeName,
  watchUntilReady,
  type ItemFlags,
  type SessionPlatform,
  type WatchFlags,
} from './common.js';

/** --session-type -> the configuration's backend (wire-api §2.11): jupyter is `regular`. */
export const SESSION_TYPES = { jupyter: 'regular', vscode: 'vscode', spark: 'spark', rstudio: 'rstudio' } as const;
type Backend = (typeof SESSION_TYPES)[keyof typeof SESSION_TYPES];

export const R_VERSIONS = ['4.5.2', '4.4.2'] as const;

/** The instance type when none is given, per platform (cloudos-cli's). */
const DEFAULT_INSTANCE: Record<SessionPlatform, string> = { aws: 'c5.xlarge', azure: 'Standard_F1s' };

export interface SessionCreateOptions extends ConnectionFlags, ItemFlags, WatchFlags {
  projectName?: string;
  projectId?: string;
  name: string;
  sessionType: Backend;
  instance?: string;
  storage: number;
  spot?: boolean;
  shared?: boolean;
  costLimit: number;
  shutdownIn?: number;
  shutdownAt?: string;
  rVersion: string;
  sparkMaster: string;
  sparkCore: string;
  sparkWorkers: number;
  executionPlatform?: SessionPlatform;
  image?: string;
  watch?: boolean;
  verbose?: boolean;
}

function sessionType(value: string): Backend {
  const v = value.trim().toLowerCase();
  if (v in SESSION_TYPES) return SESSION_TYPES[v as keyof typeof SESSION_TYPES];
  // The API's name of Jupyter is accepted too.
  if (v === 'regular') return 'regular';
  throw new InvalidArgumentError(`Unknown session type "${value}"; choose from ${Object.keys(SESSION_TYPES).join(', ')}.`);
}

function sessionName(value: string): string {
  if (value.trim().length < 1 || value.length > 100) throw new InvalidArgumentError('a session name is 1 to 100 characters long.');
  return value;
}

export interface SessionPayloadInput {
  name: string;
  backend: Backend;
  projectId: string;
  executionPlatform: SessionPlatform;
  instanceType: string;
  storageSizeInGb: number;
  isSpot: boolean;
  isShared: boolean;
  costLimit: number;
  /** The auto-shutdown date (wire form); none: a day from now, as build_session_payload does. */
  shutdownAt?: string;
  rVersion: string;
  sparkMaster: string;
  sparkCore: string;
  sparkWorkers: number;
  /** --mount's files. */
  dataItems?: SessionDataItem[];
  /** --link's folders (none on azure). */
  fuseFileSystems?: SessionDataItem[];
  /** --image: Runyard's own key, the container image a Jupyter session runs in (absent from cloudos-cli's body). */
  image?: string;
}

/** The create body exactly as cloudos-cli's build_session_payload makes it (wire-api §2.11 "Create"). */
export function buildSessionPayload(i: SessionPayloadInput): SessionCreateBody {
  const storage = { type: 'gp2', sizeInGbs: 50, volumesPerInstance: 1 };
  const autoscaling = { minCapacity: i.sparkWorkers, maxCapacity: Math.max(i.sparkWorkers * 2, 10) };
  return {
    interactiveSessionConfiguration: {
      name: i.name,
      backend: i.backend,
      executionPlatform: i.executionPlatform,
      instanceType: i.instanceType,
      isCostSaving: i.isSpot,
      storageSizeInGb: i.storageSizeInGb,
      storageMode: 'regular',
      visibility: i.isShared ? 'workspace' : 'private',
      execution: {
        computeCostLimit: i.costLimit,
        autoShutdownAtDate: i.shutdownAt ?? new Date(Date.now() + 24 * 3_600_000).toISOString().replace(/Z$/, '000Z'),
      },
      ...(i.backend === 'rstudio' && { rVersion: i.rVersion }),
      ...(i.image && { image: i.image }),
      ...(i.backend === 'spark' && {
        cluster: {
          name: `${i.name}-cluster`,
          releaseLabel: 'emr-7.3.0',
          ebsRootVolumeSizeInGb: 100,
          instances: {
            master: { type: i.sparkMaster, costSaving: i.isSpot, storage },
            core: { type: i.sparkCore, costSaving: i.isSpot, storage, minNumberOfInstances: i.sparkWorkers, autoscaling },
            tasks: [],
          },
          autoscaling,
          id: null,
        },
      }),
    },
    dataItems: i.dataItems ?? [],
    fileSystemIds: [],
    fuseFileSystems: i.executionPlatform === 'aws' ? (i.fuseFileSystems ?? []) : [],
    projectId: i.projectId,
  };
}

/**
 * create_interactive_session with the public client's options: the project by name (or id), the
 * body of build_session_payload. Prints the new session's id (stdout), and what was created and
 * its link (stderr); with --watch waits until it runs.
 */
export async function sessionCreate(opts: SessionCreateOptions, ctx: CliContext): Promise<void> {
  const given = opts.executionPlatform ?? fromProfile(ctx, opts.profile, 'executionPlatform');
  if (given !== undefined && !(SESSION_PLATFORMS as readonly string[]).includes(given)) {
    throw new UsageError(
      `Interactive sessions run on aws or azure; the profile's execution_platform is "${given}". Give --execution-platform.`,
    );
  }
  const platform = (given ?? 'aws') as SessionPlatform;
  const instance = opts.instance ?? DEFAULT_INSTANCE[platform];
  checkInstanceType(instance, platform);
  if (opts.sessionType === 'spark') {
    if (platform !== 'aws') throw new UsageError('Spark sessions are only available on aws.');
    checkInstanceType(opts.sparkMaster, 'aws', '--spark-master');
    checkInstanceType(opts.sparkCore, 'aws', '--spark-core');
  }
  if (opts.image && opts.sessionType !== 'regular')
    throw new UsageError(
      `--image runs a Jupyter session in a container image; it cannot be given with --session-type ${opts.sessionType}.`,
    );
  const projectName = opts.projectId ? undefined : opts.projectName?.trim() || fromProfile(ctx, opts.profile, 'projectName');
  if (!opts.projectId && !projectName) {
    throw new UsageError(
      'Missing option: --project-name (or --project-id). Give it on the command line, or save project_name in a profile with "runyard configure".',
    );
  }
  const plan = planItems(opts, platform);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  await withClient(conn, async (client) => {
    const projectId = opts.projectId ?? (await client.getProjectIdFromName(conn.workspaceId, projectName!))._id;
    const items = await resolveItems(client, conn, plan, ctx, opts.verbose);
    const payload = buildSessionPayload({
      name: opts.name,
      backend: opts.sessionType,
      projectId,
      executionPlatform: platform,
      instanceType: instance,
      storageSizeInGb: opts.storage,
      isSpot: Boolean(opts.spot),
      isShared: Boolean(opts.shared),
      costLimit: opts.costLimit,
      shutdownAt: shutdownDate(opts),
      rVersion: opts.rVersion,
      sparkMaster: opts.sparkMaster,
      sparkCore: opts.sparkCore,
      sparkWorkers: opts.sparkWorkers,
      dataItems: items.dataItems,
      fuseFileSystems: items.fuseFileSystems,
      image: opts.image,
    });
    if (opts.verbose) ctx.stderr.write(`Payload:\n${JSON.stringify(payload, null, 2)}\n`);
    const session = await client.createInteractiveSession(conn.workspaceId, payload);
    ctx.stdout.write(`${session._id}\n`);
    const conf = session.interactiveSessionConfiguration;
    ctx.stderr.write(
      `✓ Interactive session "${session.name}" created: ${typeName(session.interactiveSessionType)} on ${session.resources.instanceType}` +
        `${session.resources.isCostSaving ? ' (spot)' : ''}, ${session.resources.storageSizeInGb} GB, ${conf.visibility}` +
        `${conf.execution.autoShutdownAtDate ? `, stops at ${conf.execution.autoShutdownAtDate}` : ''}` +
        `${conf.execution.computeCostLimit >= 0 ? ` or at $${conf.execution.computeCostLimit}` : ''}` +
        `${conf.image ? `, in the image ${conf.image}` : ''}; ${session.status}.\n`,
    );
    ctx.stderr.write(itemLines(items.shown));
    ctx.stderr.write(`Session link: ${sessionUrl(conn.platformUrl, session._id)}\n`);
    if (opts.watch) {
      await watchUntilReady(client, conn, session._id, opts, ctx, session);
      await reportItemMounts(client, conn, session._id, items.shown, ctx);
    } else {
      ctx.stderr.write(`Next: "runyard interactive-session status ${session._id} --watch" waits until it runs.\n`);
    }
  });
}

function sessionTypeOption(): Option {
  const option = new Option('--session-type <type>', 'jupyter, vscode, spark or rstudio').argParser(sessionType).makeOptionMandatory();
  option.argChoices = Object.keys(SESSION_TYPES);
  return option;
}

export function sessionCreateCommand(ctx: CliContext): Command {
  const cmd = new Command('create')
    .description('create an interactive session (Jupyter, VS Code, RStudio, Spark) and print its id')
    .option('--project-name <name>', "the session's project (default: the profile's project_name)")
    .addOption(
      new Option('--project-id <id>', 'the project by id instead')
        .argParser(objectId('project', '"runyard project list"'))
        .conflicts('projectName'),
    )
    .addOption(new Option('--name <name>', 'name of the session (1-100 characters)').argParser(sessionName).makeOptionMandatory())
    .addOption(sessionTypeOption())
    .option('--instance <type>', 'instance type (default: c5.xlarge on aws, Standard_F1s on azure)')
    .addOption(
      new Option('--storage <gb>', `storage in GB (${STORAGE_MIN_GB}-${STORAGE_MAX_GB})`)
        .argParser(integerIn(STORAGE_MIN_GB, STORAGE_MAX_GB))
        .default(500),
    )
    .option('--spot', 'use a cost-saving (spot) instance')
    .option('--shared', 'visible to every member of the workspace (default: private to you)')
    .addOption(
      new Option('--cost-limit <usd>', 'stop the session (saving its home) when it has cost this many US dollars (-1: no limit)')
        .argParser(costLimitParser)
        .default(-1),
    );
  addShutdownOptions(cmd, '12h');
  addItemOptions(cmd);
  cmd
    .addOption(new Option('--r-version <version>', 'R version of an RStudio session').choices(R_VERSIONS).default('4.5.2'))
    .option('--spark-master <type>', 'instance type of the Spark master', 'c5.2xlarge')
    .option('--spark-core <type>', 'instance type of the Spark core nodes', 'c5.xlarge')
    .addOption(new Option('--spark-workers <n>', 'initial number of Spark workers').argParser(integerIn(1, 1000)).default(1))
    .addOption(
      new Option('--execution-platform <platform>', "aws or azure (default: the profile's execution_platform, else aws)").choices(
        SESSION_PLATFORMS,
      ),
    );
  cmd.option(
    '--image <reference>',
    'Runyard\'s own: run the Jupyter session in this container image (e.g. ghcr.io/lab/notebook:1; pulled with your account linked by "runyard user docker-login"); it needs jupyter on its PATH',
  );
  addWatchOptions(cmd, 'then wait until the session runs, printing each change of status');
  cmd.option('--verbose', 'print the request body');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: SessionCreateOptions) => sessionCreate(opts, ctx));
}
