import type { InstanceTypeEntry, InstanceTypeListReply } from '@runyard/client/core';
import { formatUsd } from './job-format';

type LocalExecutor = NonNullable<InstanceTypeListReply['localExecutor']>;

/** How the type runs on this server's local executor, when not as it is: capped to its size, or refused (strict mode). */
export function fitText(t: InstanceTypeEntry, local: LocalExecutor | undefined): string {
  const fit = local?.fit[t.name];
  if (fit === 'capped') return ` (runs here with at most ${local!.cpus} CPUs, ${local!.memoryGiB} GiB)`;
  if (fit === 'refused') return ' (too large for this server)';
  return '';
}

/** One instance type as a choice: its name, size and hourly price, and how it runs here. */
export function instanceTypeText(t: InstanceTypeEntry, local?: LocalExecutor): string {
  return `${t.name} — ${t.vcpus} CPUs, ${t.memoryGiB} GiB, ${formatUsd(t.pricePerHourUsd)}/hour${fitText(t, local)}`;
}

/** The type a form offers first: the one chosen, else one that fits this server (the default when it does). */
export function firstType(chosen: string, catalogue: InstanceTypeListReply | undefined): string {
  return chosen || catalogue?.localExecutor?.suggestedInstanceType || catalogue?.defaultInstanceType || '';
}

interface Props {
  id: string;
  types: InstanceTypeEntry[];
  /** This server's local executor: types larger than it are marked (and those it refuses disabled). */
  local?: LocalExecutor;
  value: string;
  onChange(name: string): void;
  /** A first choice for "as it was" (clone): value ''. */
  keepLabel?: string;
}

/** The catalogue's instance types, each with its CPUs, memory and price per hour, and how it runs here. */
export function InstanceTypeSelect({ id, types, local, value, onChange, keepLabel }: Props) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      {keepLabel !== undefined && <option value="">{keepLabel}</option>}
      {types.map((t) => (
        <option key={t.name} value={t.name} disabled={local?.fit[t.name] === 'refused'}>
          {instanceTypeText(t, local)}
        </option>
      ))}
    </select>
  );
}
