import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { askedResources, jobResources, type JobResources, type ResourcedJob } from '../instance-types/job-resources.js';
import { instanceTypes } from '../instance-types/load.js';
import { capacityOf } from '../instance-types/capacity.js';

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** An instance type the catalogue lacks is refused: nothing could size or price the job. */
function checkInstanceType(config: Config, type: string | null): void {
  if (type === null || instanceTypes(config).has(type)) return;
  throw new AppError(
    'VALIDATION_FAILED',
    `Instance type ${quoted(type)} is not one this server offers; GET /api/runyard/instance-types (runyard instance-types list) lists them.`,
  );
}

/** In strict mode, a job larger than its executor's whole capacity is refused, naming the limit (it would otherwise run capped). */
export function checkFits(config: Config, backend: string, r: JobResources, what: 'job' | 'session' = 'job'): void {
  const capacity = capacityOf(config, backend);
  if (!capacity) return;
  const source = r.instanceType ? `instance type ${r.instanceType}` : 'its cpu and ram';
  const fix = r.instanceType ? 'choose a smaller instance type' : 'ask for less';
  // Said with the fix: the operator's choice refuses it; without it, it would run with what there is.
  const strict = ' (RUNYARD_STRICT_RESOURCES refuses what does not fit)';
  if (r.cpus > capacity.cpus) {
    throw new AppError(
      'VALIDATION_FAILED',
      `The ${what} asks for ${count(r.cpus, 'vCPU')} (${source}), more than this server's ${backend} executor has ` +
        `(${capacity.cpus}, ${capacity.cpusSetting})${strict}; ${fix} or raise ${capacity.cpusSetting}.`,
    );
  }
  if (r.memoryGiB > capacity.memoryGiB) {
    throw new AppError(
      'VALIDATION_FAILED',
      `The ${what} asks for ${r.memoryGiB} GiB of memory (${source}), more than this server's ${backend} executor has ` +
        `(${capacity.memoryGiB} GiB, ${capacity.memorySetting})${strict}; ${fix} or raise ${capacity.memorySetting}.`,
    );
  }
}

/**
 * What a job about to be stored will hold while it runs, once it is known that its instance type
 * exists: on the local executor, what it asked for up to what the executor has (or, with
 * RUNYARD_STRICT_RESOURCES, 400 when it asks for more).
 */
export function admitJob(config: Config, backend: string, job: ResourcedJob): JobResources {
  checkInstanceType(config, job.instance_type);
  const placed = { ...job, backend };
  if (config.strictResources) checkFits(config, backend, askedResources(config, placed));
  return jobResources(config, placed);
}
