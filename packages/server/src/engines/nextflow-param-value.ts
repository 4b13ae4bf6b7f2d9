/**
 * The value Nextflow itself would give a `--name value` command-line parameter: `true`/`false`
 * become booleans and plain integers and decimals become numbers (as Nextflow's CmdRun does);
 * anything else stays text. CloudOS passes job parameters on the command line, so a params file
 * must carry the same types or `--flag false` would reach the pipeline as a truthy string.
 */
export function nextflowParamValue(value: string | number | boolean): string | number | boolean {
  if (typeof value !== 'string') return value;
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (/^-?\d{1,15}$/.test(value)) return Number(value);
  if (/^-?\d+\.\d+$/.test(value) && Number.isFinite(Number(value))) return Number(value);
  return value;
}
