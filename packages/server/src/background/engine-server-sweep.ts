import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { settleEngineServers } from '../services/engine-servers.js';
import type { Database } from '../store/schema.js';

/** Milliseconds between two sweeps of the engine servers. */
const SWEEP_MS = 5000;

/**
 * Settles the workspaces' engine servers without waiting for a reader: a stopping server whose
 * WDL jobs have ended is stopped (a server of Runyard's with its process), a server of Runyard's
 * whose process ended is found Stopped, and the inputs of its ended jobs are removed.
 */
export class EngineServerSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly config: Config,
  ) {}

  start(log: Logger): void {
    const sweep = () => {
      this.running = settleEngineServers(this.db, this.config)
        .catch((e: unknown) => log.error({ err: (e as Error).message }, 'engine server sweep failed'))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(sweep, SWEEP_MS);
        });
    };
    this.timer = setTimeout(sweep, SWEEP_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
