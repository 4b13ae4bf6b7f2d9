import type { InstanceTypeListReply, LocalFit } from '@runyard/contract';
import { localCapacity } from '../instance-types/capacity.js';
import type { Config } from '../config.js';
import { DEFAULT_INSTANCE_TYPE } from '../instance-types/catalogue.js';
import { instanceTypes } from '../instance-types/load.js';

/**
 * `GET /api/runyard/instance-types`: the catalogue (built in, or as the operator file makes it),
 * with how each type fits the local executor, and the type a form offers first: the default when it
 * fits, else the largest that does (most vCPUs, then memory, then the cheapest).
 */
export function listInstanceTypes(config: Config): InstanceTypeListReply {
  const types = [...instanceTypes(config).values()];
  const capacity = localCapacity(config);
  const fitOf = (t: { vcpus: number; memoryGiB: number }): LocalFit =>
    t.vcpus <= capacity.cpus && t.memoryGiB <= capacity.memoryGiB ? 'fits' : config.strictResources ? 'refused' : 'capped';
  const fit = Object.fromEntries(types.map((t) => [t.name, fitOf(t)]));
  const fitting = types
    .filter((t) => fit[t.name] === 'fits')
    .sort((a, b) => b.vcpus - a.vcpus || b.memoryGiB - a.memoryGiB || a.pricePerHourUsd - b.pricePerHourUsd);
  const suggested = fit[DEFAULT_INSTANCE_TYPE] === 'fits' ? DEFAULT_INSTANCE_TYPE : (fitting[0]?.name ?? DEFAULT_INSTANCE_TYPE);
  return {
    instanceTypes: types,
    defaultInstanceType: DEFAULT_INSTANCE_TYPE,
    localExecutor: {
      cpus: capacity.cpus,
      memoryGiB: capacity.memoryGiB,
      strict: config.strictResources,
      fit,
      suggestedInstanceType: suggested,
    },
  };
}
