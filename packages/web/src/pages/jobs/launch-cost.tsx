import type { InstanceTypeEntry } from '@runyard/client/core';
import { formatUsd } from './job-format';

/**
 * The estimated cost of an hour of the job before it is launched: its instance type's on-demand
 * price in the catalogue (what the server charges a running job by), and how long the cost limit lasts.
 */
export function LaunchCost({ type, costLimit }: { type: InstanceTypeEntry | undefined; costLimit: number }) {
  return (
    <p className="jobs-estimate" role="status" aria-live="polite">
      {type ? (
        <>
          <strong>Estimated cost: {formatUsd(type.pricePerHourUsd)} per hour</strong> ({type.name}, {type.vcpus} CPUs, {type.memoryGiB} GiB;
          price of {type.priceDate})
          {costLimit > 0 && type.pricePerHourUsd > 0 && (
            <>
              . The cost limit of {formatUsd(costLimit)} stops it after about {hours(costLimit / type.pricePerHourUsd)}.
            </>
          )}
        </>
      ) : (
        'Estimated cost: choose an instance type.'
      )}
    </p>
  );
}

function hours(h: number): string {
  if (h >= 48) return `${Math.round(h / 24)} days`;
  if (h >= 1) return `${h.toFixed(1)} hours`;
  return `${Math.max(1, Math.round(h * 60))} minutes`;
}
