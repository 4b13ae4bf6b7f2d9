import type { SessionBackend } from '@runyard/contract';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { findOnPath } from '../executors/find-executable.js';
import { instanceTypes } from '../instance-types/load.js';
import { askedResources, jobResources } from '../instance-types/job-resources.js';
import { checkFits } from './job-admission.js';
import { hourlyPriceCents } from '../scheduler/cost.js';

/**
 * The checks a session's configuration gets at creation and at resume, each refusal a 4xx that
 * says what to change: a backend this server can run, an instance type of the catalogue, a cost
 * limit of -1 or more, an auto-shutdown date still to come.
 */

/** The setting that gives each backend but Jupyter its command. */
const COMMAND_SETTINGS = {
  vscode: { key: 'sessionCommandVscode', env: 'RUNYARD_SESSION_COMMAND_VSCODE' },
  rstudio: { key: 'sessionCommandRstudio', env: 'RUNYARD_SESSION_COMMAND_RSTUDIO' },
  spark: { key: 'sessionCommandSpark', env: 'RUNYARD_SESSION_COMMAND_SPARK' },
} as const;

/** Jupyter (backend regular) is the `jupyter` program on the task PATH. */
export const JUPYTER_PROGRAM = 'jupyter';

/**
 * What starts a session of `backend` on this server: for `regular`, the path of jupyter on the task
 * PATH; for the others, the operator's command line, split on white space. Refused (400, naming
 * what to install or set) when there is none.
 */
export function sessionCommand(config: Config, backend: SessionBackend): string[] {
  if (backend === 'regular') {
    const jupyter = findOnPath(JUPYTER_PROGRAM, config.taskPath);
    if (!jupyter) {
      throw new AppError(
        'SESSION_BACKEND_UNAVAILABLE',
        `Jupyter sessions (backend regular) need ${JUPYTER_PROGRAM} on the task PATH (RUNYARD_TASK_PATH), and it is not there: install Jupyter (Debian: apt-get install jupyter-notebook).`,
      );
    }
    return [jupyter];
  }
  const setting = COMMAND_SETTINGS[backend];
  const words = config[setting.key].split(/\s+/).filter(Boolean);
  if (!words.length) {
    throw new AppError(
      'SESSION_BACKEND_UNAVAILABLE',
      `${backend} sessions are not offered by this server: its operator has not set ${setting.env} (the command that serves their web UI).`,
    );
  }
  return words;
}

/** What a session of an instance type holds and costs: its size and hourly price (cents) from the catalogue. */
export interface SessionSizing {
  instanceType: string;
  cpus: number;
  memoryGiB: number;
  pricePerHourCents: number;
}

/** The instance type's size and price; one the catalogue lacks is refused (400), as for jobs. */
export function sessionSizing(config: Config, instanceType: string): SessionSizing {
  const type = instanceTypes(config).get(instanceType);
  if (!type) {
    throw new AppError(
      'VALIDATION_FAILED',
      `Instance type ${quoted(instanceType)} is not one this server offers; GET /api/runyard/instance-types (runyard instance-types list) lists them.`,
    );
  }
  // Sessions run on the local executor: capped to what it has, as jobs are, or refused in strict mode.
  const asked = { workflow_type: 'session', instance_type: type.name, resource_cpu: type.vcpus, resource_ram: type.memoryGiB };
  if (config.strictResources) checkFits(config, 'local', askedResources(config, asked), 'session');
  const given = jobResources(config, { ...asked, backend: 'local' });
  return {
    instanceType: type.name,
    cpus: given.cpus,
    memoryGiB: given.memoryGiB,
    // The job pricing rule: the catalogue's hourly price, or vCPUs x RUNYARD_CPU_HOUR_COST_CENTS when the operator sets it.
    pricePerHourCents: hourlyPriceCents(config, { instance_type: type.name, resource_cpu: type.vcpus, array_limit: null }),
  };
}

/** A cost limit in dollars: -1 (no limit) or a number of 0 or more. */
export function checkCostLimit(limit: number, field: string): number {
  if (limit === -1 || (Number.isFinite(limit) && limit >= 0)) return limit;
  throw new AppError('VALIDATION_FAILED', `${field} must be -1 (no limit) or a number of dollars of 0 or more, not ${limit}.`);
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * An auto-shutdown date: ISO-8601 with a time zone (the public client sends UTC with microseconds
 * and a Z), still to come at `nowMs`. Stored as ISO-8601 UTC (milliseconds); null stays null (never).
 */
export function checkShutdownDate(value: string | null, field: string, nowMs: number): string | null {
  if (value === null) return null;
  const ms = ISO_DATE.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${field} must be an ISO-8601 date and time with a time zone (e.g. 2030-01-31T18:00:00Z), not ${quoted(value)}.`,
    );
  }
  if (ms <= nowMs) {
    throw new AppError('VALIDATION_FAILED', `${field} ${quoted(value)} is in the past: the session would be stopped at once.`);
  }
  return new Date(ms).toISOString();
}
