import { DEFAULT_INSTANCE_TYPE } from './catalogue.js';
import { instanceTypes, type CatalogueSettings } from './load.js';

/** What a job's task is given, and holds of the executor's capacity while it runs. */
export interface JobResources {
  cpus: number;
  memoryGiB: number;
  /** The instance type the resources come from, or null when they come from `cpu`/`ram` (bash jobs). */
  instanceType: string | null;
}

/** The columns of a job that decide its resources. */
export interface ResourcedJob {
  workflow_type: string;
  instance_type: string | null;
  resource_cpu: number;
  resource_ram: number;
}

/**
 * A job's resources: a bash (container) job gets what it asked for in `resourceRequirements`
 * (`--cpus`, `--memory`); a Nextflow or WDL head job gets its instance type's vCPUs and memory.
 * A job without an instance type (HPC) gets its `cpu`/`ram`; an instance type the catalogue lacks
 * (refused at submission, so only a job from before a catalogue change) is sized as the default type.
 */
export function jobResources(config: CatalogueSettings, job: ResourcedJob): JobResources {
  // HPC jobs may name no instance type: they are sized by what they asked for, as bash jobs are.
  if (job.workflow_type === 'docker' || !job.instance_type) {
    return { cpus: job.resource_cpu, memoryGiB: Number(job.resource_ram), instanceType: null };
  }
  const catalogue = instanceTypes(config);
  const type = catalogue.get(job.instance_type) ?? catalogue.get(DEFAULT_INSTANCE_TYPE);
  if (!type) return { cpus: job.resource_cpu, memoryGiB: Number(job.resource_ram), instanceType: null };
  return { cpus: type.vcpus, memoryGiB: type.memoryGiB, instanceType: type.name };
}
