/** Vocabulary shared by the job-submission rules (seed contract §2.3, wire reference §2.2). */

/** The workflow language of a job; `docker` is a bash/container job. */
export type WorkflowType = 'nextflow' | 'wdl' | 'docker';

/** Where a job runs. */
export type ExecutionPlatform = 'aws' | 'azure' | 'hpc';

export const EXECUTION_PLATFORMS: readonly ExecutionPlatform[] = ['aws', 'azure', 'hpc'];
export const WORKFLOW_TYPES: readonly WorkflowType[] = ['nextflow', 'wdl', 'docker'];
