import type { InstanceTypeListReply } from '@runyard/contract';
import type { Config } from '../config.js';
import { DEFAULT_INSTANCE_TYPE } from '../instance-types/catalogue.js';
import { instanceTypes } from '../instance-types/load.js';

/** `GET /api/runyard/instance-types`: the catalogue (built in, or as the operator file makes it). */
export function listInstanceTypes(config: Config): InstanceTypeListReply {
  return { instanceTypes: [...instanceTypes(config).values()], defaultInstanceType: DEFAULT_INSTANCE_TYPE };
}
