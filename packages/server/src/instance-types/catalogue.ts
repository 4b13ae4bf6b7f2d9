/** One instance type a job may ask for: its size and its hourly on-demand price. */
export interface InstanceType {
  name: string;
  provider: 'aws' | 'azure' | 'other';
  vcpus: number;
  memoryGiB: number;
  /** On-demand price of one hour, in US dollars (Linux). */
  pricePerHourUsd: number;
  /** The day the price was read (YYYY-MM-DD). */
  priceDate: string;
}

/** The instance type of a job that names none (bash and HPC jobs may not): CloudOS's AWS default. */
export const DEFAULT_INSTANCE_TYPE = 'c5.xlarge';

const AWS_DATE = '2025-06-01';
const AZURE_DATE = '2025-06-01';

/** [name, vCPUs, GiB, USD an hour]: AWS us-east-1, Linux, on demand. */
const AWS: [string, number, number, number][] = [
  ['c5.large', 2, 4, 0.085],
  ['c5.xlarge', 4, 8, 0.17],
  ['c5.2xlarge', 8, 16, 0.34],
  ['c5.4xlarge', 16, 32, 0.68],
  ['c5.9xlarge', 36, 72, 1.53],
  ['c5.12xlarge', 48, 96, 2.04],
  ['c5.18xlarge', 72, 144, 3.06],
  ['c5.24xlarge', 96, 192, 4.08],
  ['m5.large', 2, 8, 0.096],
  ['m5.xlarge', 4, 16, 0.192],
  ['m5.2xlarge', 8, 32, 0.384],
  ['m5.4xlarge', 16, 64, 0.768],
  ['m5.8xlarge', 32, 128, 1.536],
  ['m5.12xlarge', 48, 192, 2.304],
  ['m5.16xlarge', 64, 256, 3.072],
  ['m5.24xlarge', 96, 384, 4.608],
  ['r5.large', 2, 16, 0.126],
  ['r5.xlarge', 4, 32, 0.252],
  ['r5.2xlarge', 8, 64, 0.504],
  ['r5.4xlarge', 16, 128, 1.008],
  ['r5.8xlarge', 32, 256, 2.016],
  ['r5.12xlarge', 48, 384, 3.024],
  ['r5.16xlarge', 64, 512, 4.032],
  ['r5.24xlarge', 96, 768, 6.048],
  ['t3.micro', 2, 1, 0.0104],
  ['t3.small', 2, 2, 0.0208],
  ['t3.medium', 2, 4, 0.0416],
  ['t3.large', 2, 8, 0.0832],
  ['t3.xlarge', 4, 16, 0.1664],
  ['t3.2xlarge', 8, 32, 0.3328],
];

/** Azure East US, Linux, pay as you go: Dasv4 and Dsv5 (4 GiB a vCPU, the same list price). */
const AZURE: [string, number, number, number][] = [2, 4, 8, 16, 32, 48, 64, 96].flatMap((n) => [
  [`Standard_D${n}as_v4`, n, n * 4, n * 0.048] as [string, number, number, number],
  [`Standard_D${n}s_v5`, n, n * 4, n * 0.048] as [string, number, number, number],
]);

const entry =
  (provider: InstanceType['provider'], priceDate: string) =>
  ([name, vcpus, memoryGiB, price]: [string, number, number, number]): InstanceType => ({
    name,
    provider,
    vcpus,
    memoryGiB,
    pricePerHourUsd: Math.round(price * 10_000) / 10_000,
    priceDate,
  });

/** The built-in catalogue, before any operator file (RUNYARD_INSTANCE_TYPES). */
export const BUILT_IN_INSTANCE_TYPES: readonly InstanceType[] = Object.freeze([
  ...AWS.map(entry('aws', AWS_DATE)),
  ...AZURE.map(entry('azure', AZURE_DATE)),
]);
