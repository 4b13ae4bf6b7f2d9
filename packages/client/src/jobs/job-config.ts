// Reading a job-config file from disk (node only); the parser itself is job-config-parser.ts.
import { readFile } from 'node:fs/promises';
import { RunyardValueError } from '../errors.js';
import { parseJobConfig, type JobConfig } from './job-config-parser.js';
import type { WorkflowType } from './job-types.js';

export { parseJobConfig, stripTrailingComment, type JobConfig, type JobConfigOptions } from './job-config-parser.js';

/** Reads and parses a job-config file; a missing or unreadable file is a RunyardValueError. */
export async function readJobConfigFile(path: string, workflowType: WorkflowType): Promise<JobConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new RunyardValueError(`The job-config file ${path} does not exist.`);
    throw new RunyardValueError(`Cannot read the job-config file ${path}: ${(err as Error).message}`);
  }
  return parseJobConfig(text, { fileName: path, workflowType });
}
