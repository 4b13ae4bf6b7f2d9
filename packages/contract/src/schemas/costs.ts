import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, PaginationMetadata } from './common.js';

/** An instance type of the catalogue (`GET /api/runyard/instance-types`). */
export const InstanceTypeEntry = Type.Object({
  name: Type.String(),
  provider: Type.Union(['aws', 'azure', 'other'].map((p) => Type.Literal(p))),
  vcpus: Type.Number(),
  memoryGiB: Type.Number(),
  pricePerHourUsd: Type.Number({ description: 'On-demand price of an hour, US dollars' }),
  priceDate: Type.String({ description: 'The day the price was read, YYYY-MM-DD' }),
});
export type InstanceTypeEntry = Static<typeof InstanceTypeEntry>;

/** How a type fits this server's local executor: whole, capped to what it has, or refused (strict mode). */
export const LocalFit = Type.Union(['fits', 'capped', 'refused'].map((f) => Type.Literal(f)));
export type LocalFit = Static<typeof LocalFit>;

export const InstanceTypeListReply = Type.Object({
  instanceTypes: Type.Array(InstanceTypeEntry),
  /** The type of a job that names none. */
  defaultInstanceType: Type.String(),
  /** Runyard: what the local executor has, and how each type fits it (by name); the type a form should offer first. */
  localExecutor: Type.Optional(
    Type.Object({
      cpus: Type.Number(),
      memoryGiB: Type.Number(),
      strict: Type.Boolean(),
      fit: Type.Record(Type.String(), LocalFit),
      suggestedInstanceType: Type.String(),
    }),
  ),
});
export type InstanceTypeListReply = Static<typeof InstanceTypeListReply>;

/** `?page=&limit=&teamId=` of `GET /api/v1/jobs/{id}/costs/compute`; the pages are over the workers. */
export const JobCostsQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});
export type JobCostsQuery = Static<typeof JobCostsQuery>;

const Price = Type.Object({ amount: Type.Number(), currencyCode: Type.String() });

/** One machine of a job and what it cost, in dollars (wire-api §2.1 "Costs"). */
export const InstanceCost = Type.Object({
  id: Type.String(),
  machineType: Type.Union([Type.String(), Type.Null()]),
  isCostSaving: Type.Boolean(),
  startTime: Type.Union([IsoTime, Type.Null()]),
  endTime: Type.Union([IsoTime, Type.Null()]),
  instancePricePerHour: Price,
  storage: Type.Object({ usageQuantity: Type.Number(), usageUnit: Type.String() }),
  storagePricePerHour: Price,
  totalPrice: Price,
});
export type InstanceCost = Static<typeof InstanceCost>;

export const JobCostsReply = Type.Object({
  master: InstanceCost,
  workers: Type.Array(InstanceCost),
  paginationMetadata: PaginationMetadata,
});
export type JobCostsReply = Static<typeof JobCostsReply>;
