import type { SessionDataItem, SessionResumeBody } from '@runyard/client';
import { Command, Option } from 'commander';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { integerIn } from '../../options/integer.js';
import {
  addItemOptions,
  addSessionIdArgument,
  withSessionClient,
  addShutdownOptions,
  addWatchOptions,
  checkInstanceType,
  costLimitParser,
  sessionIdOf,
  shownStatus,
  shutdownDate,
  STORAGE_MAX_GB,
  STORAGE_MIN_GB,
  watchUntilReady,
  type ItemFlags,
  type SessionIdFlags,
  type SessionPlatform,
  type WatchFlags,
} from './common.js';
import { itemLines, planItems, reportItemMounts, resolveItems } from './items.js';

export interface SessionResumeOptions extends ConnectionFlags, SessionIdFlags, ItemFlags, WatchFlags {
  instance?: string;
  storage?: number;
  costLimit?: number;
  shutdownIn?: number;
  shutdownAt?: string;
  watch?: boolean;
  verbose?: boolean;
}

/**
 * The body of cloudos-cli's build_resume_payload: the new configuration only when something
 * changes, fuseFileSystems only when there are some.
 */
export function buildResumePayload(o: {
  instanceType?: string;
  storageSizeInGb?: number;
  costLimit?: number;
  shutdownAt?: string;
  dataItems?: SessionDataItem[];
  fuseFileSystems?: SessionDataItem[];
}): SessionResumeBody {
  const execution = {
    ...(o.costLimit !== undefined && { computeCostLimit: o.costLimit }),
    ...(o.shutdownAt !== undefined && { autoShutdownAtDate: o.shutdownAt }),
  };
  const conf = {
    ...(o.instanceType !== undefined && { instanceType: o.instanceType }),
    ...(o.storageSizeInGb !== undefined && { storageSizeInGb: o.storageSizeInGb }),
    ...(Object.keys(execution).length > 0 && { execution }),
  };
  return {
    dataItems: o.dataItems ?? [],
    fileSystemIds: [],
    ...(Object.keys(conf).length > 0 && { newInteractiveSessionConfiguration: conf }),
    ...(o.fuseFileSystems?.length && { fuseFileSystems: o.fuseFileSystems }),
  };
}

/**
 * resume_interactive_session: reads the session (its platform, and whether it is paused), then
 * schedules it again with the changes given. Prints its id (stdout) and what changed (stderr);
 * with --watch waits until it runs.
 */
export async function sessionResume(arg: string | undefined, opts: SessionResumeOptions, ctx: CliContext): Promise<void> {
  const id = sessionIdOf(arg, opts);
  // Checked before any request as on aws; azure's refusals once the session says it is on azure.
  planItems(opts, 'aws');
  const conn = resolveConnection(opts, ctx, { workspace: true });
  await withSessionClient(conn, id, async (client) => {
    const current = await client.getInteractiveSession(id, conn.workspaceId);
    if (current.status !== 'aborted') {
      const shown = shownStatus(current.status);
      const tip =
        current.status === 'ready'
          ? `It is already running: "runyard interactive-session open ${id}" opens it.`
          : current.status === 'terminated'
            ? 'Terminated sessions cannot be resumed; create a new one.'
            : `Wait until it is paused: "runyard interactive-session status ${id} --watch".`;
      throw new CliError(`Cannot resume session ${id}: its status is "${shown}"; only paused sessions can be resumed. ${tip}`);
    }
    const platform = (current.interactiveSessionConfiguration?.executionPlatform ?? 'aws') as SessionPlatform;
    if (opts.instance !== undefined) checkInstanceType(opts.instance, platform);
    const items = await resolveItems(client, conn, planItems(opts, platform), ctx, opts.verbose);
    const payload = buildResumePayload({
      dataItems: items.dataItems,
      fuseFileSystems: platform === 'aws' ? items.fuseFileSystems : undefined,
      instanceType: opts.instance,
      storageSizeInGb: opts.storage,
      costLimit: opts.costLimit,
      shutdownAt: shutdownDate(opts),
    });
    if (opts.verbose) ctx.stderr.write(`Payload:\n${JSON.stringify(payload, null, 2)}\n`);
    const session = await client.resumeInteractiveSession(id, conn.workspaceId, payload);
    ctx.stdout.write(`${id}\n`);
    ctx.stderr.write(`✓ Session ${id} has been resumed successfully!\n`);
    const conf = session.interactiveSessionConfiguration;
    const changed = [
      opts.instance !== undefined && `  Instance type: ${conf.instanceType}`,
      opts.storage !== undefined && `  Storage: ${conf.storageSizeInGb} GB`,
      opts.costLimit !== undefined &&
        `  Cost limit: ${conf.execution.computeCostLimit === -1 ? 'none' : `$${conf.execution.computeCostLimit}`}`,
      payload.newInteractiveSessionConfiguration?.execution?.autoShutdownAtDate !== undefined &&
        `  Auto-shutdown: ${conf.execution.autoShutdownAtDate}`,
    ].filter(Boolean);
    if (changed.length) ctx.stderr.write(`Updated configuration:\n${changed.join('\n')}\n`);
    if (items.shown.length) ctx.stderr.write(`Added:\n${itemLines(items.shown)}`);
    ctx.stderr.write(`Session status: ${shownStatus(session.status)}\n`);
    if (opts.watch) {
      await watchUntilReady(client, conn, id, opts, ctx, session);
      await reportItemMounts(client, conn, id, items.shown, ctx);
    } else ctx.stderr.write(`Next: "runyard interactive-session status ${id} --watch" waits until it runs.\n`);
  });
}

export function sessionResumeCommand(ctx: CliContext): Command {
  const cmd = new Command('resume').description(
    'resume a paused interactive session (from its saved home), optionally changing its configuration',
  );
  addSessionIdArgument(cmd);
  cmd
    .option('--instance <type>', 'run it on this instance type from now on')
    .addOption(
      new Option('--storage <gb>', `its storage in GB (${STORAGE_MIN_GB}-${STORAGE_MAX_GB})`).argParser(
        integerIn(STORAGE_MIN_GB, STORAGE_MAX_GB),
      ),
    )
    .addOption(new Option('--cost-limit <usd>', 'a new cost limit in US dollars (-1: no limit)').argParser(costLimitParser));
  addShutdownOptions(cmd);
  addItemOptions(cmd);
  addWatchOptions(cmd, 'then wait until the session runs, printing each change of status');
  cmd.option('--verbose', 'print the request body');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((arg: string | undefined, opts: SessionResumeOptions) => sessionResume(arg, opts, ctx));
}
