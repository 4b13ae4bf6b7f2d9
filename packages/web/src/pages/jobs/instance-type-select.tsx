import type { InstanceTypeEntry } from '@runyard/client/core';
import { formatUsd } from './job-format';

/** One instance type as a choice: its name, size and hourly price. */
export function instanceTypeText(t: InstanceTypeEntry): string {
  return `${t.name} — ${t.vcpus} CPUs, ${t.memoryGiB} GiB, ${formatUsd(t.pricePerHourUsd)}/hour`;
}

interface Props {
  id: string;
  types: InstanceTypeEntry[];
  value: string;
  onChange(name: string): void;
  /** A first choice for "as it was" (clone): value ''. */
  keepLabel?: string;
}

/** The catalogue's instance types, each with its CPUs, memory and price per hour. */
export function InstanceTypeSelect({ id, types, value, onChange, keepLabel }: Props) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      {keepLabel !== undefined && <option value="">{keepLabel}</option>}
      {types.map((t) => (
        <option key={t.name} value={t.name}>
          {instanceTypeText(t)}
        </option>
      ))}
    </select>
  );
}
