import { DEFAULT_INSTANCE_TYPE } from './catalogue.js';
import { localCapacity, type CapacitySettings } from './capacity.js';
import { instanceTypes, type CatalogueSettings } from './load.js';

/** The settings that size a job: the catalogue, and the local executor's capacity and strictness. */
export type ResourceSettings = CatalogueSettings & CapacitySettings & { strictResources: boolean };

/** What a job's task is given, and holds of the executor's capacity while it runs. */
export interface JobResources {
  cpus: number;
  memoryGiB: number;
  /** The instance type the resources come from, or null when they come from `cpu`/`ram` (bash jobs). */
  instanceType: string | null;
}

/** The columns of a job that decide its resources; backend: its queue's executor, when known ('local' caps, below). */
export interface ResourcedJob {
  workflow_type: string;
  instance_type: string | null;
  resource_cpu: number;
  resource_ram: number;
  backend?: string | null;
}

/**
 * A job's resources: a bash (container) job gets what it asked for in `resourceRequirements`
 * (`--cpus`, `--memory`); a Nextflow or WDL head job gets its instance type's vCPUs and memory.
 * A job without an instance type (HPC) gets its `cpu`/`ram`; an instance type the catalogue lacks
 * (refused at submission, so only a job from before a catalogue change) is sized as the default type.
 */
export function jobResources(config: ResourceSettings, job: ResourcedJob): JobResources {
  const asked = askedResources(config, job);
  // On the local executor, unless the operator wants refusals, a job larger than the executor runs with what it has.
  if (job.backend !== 'local' || config.strictResources) return asked;
  const capacity = localCapacity(config);
  return { ...asked, cpus: Math.min(asked.cpus, capacity.cpus), memoryGiB: Math.min(asked.memoryGiB, capacity.memoryGiB) };
}

/** What the job asked for, before any cap. */
export function askedResources(config: CatalogueSettings, job: ResourcedJob): JobResources {
  // HPC jobs may name no instance type: they are sized by what they asked for, as bash jobs are.
  if (job.workflow_type === 'docker' || !job.instance_type) {
    return { cpus: job.resource_cpu, memoryGiB: Number(job.resource_ram), instanceType: null };
  }
  const catalogue = instanceTypes(config);
  const type = catalogue.get(job.instance_type) ?? catalogue.get(DEFAULT_INSTANCE_TYPE);
  if (!type) return { cpus: job.resource_cpu, memoryGiB: Number(job.resource_ram), instanceType: null };
  return { cpus: type.vcpus, memoryGiB: type.memoryGiB, instanceType: type.name };
}

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * What the job's log and document say when it runs with less than it asked for (jobResources'
 * cap), or null: "asked for c5.xlarge: 4 vCPUs, 8 GiB; this server gives at most 2 vCPUs, 8 GiB".
 */
export function cappedNote(config: ResourceSettings, job: ResourcedJob): string | null {
  const asked = askedResources(config, job);
  const given = jobResources(config, job);
  if (given.cpus === asked.cpus && given.memoryGiB === asked.memoryGiB) return null;
  const capacity = localCapacity(config);
  const what = asked.instanceType ? `${asked.instanceType}: ` : '';
  return (
    `asked for ${what}${count(asked.cpus, 'vCPU')}, ${asked.memoryGiB} GiB; this server gives at most ` +
    `${count(capacity.cpus, 'vCPU')}, ${capacity.memoryGiB} GiB (${capacity.cpusSetting}, ${capacity.memorySetting}), ` +
    `so it runs with ${count(given.cpus, 'vCPU')}, ${given.memoryGiB} GiB` +
    (asked.instanceType ? ` and costs what ${asked.instanceType} costs.` : '.')
  );
}
