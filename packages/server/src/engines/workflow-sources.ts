import path from 'node:path';
import type { Config } from '../config.js';
import { materializeCommit } from '../git/snapshot.js';
import { resolveRepository } from '../services/repositories.js';
import { EngineError, type JobPaths, type JobRow, type WorkflowRow } from './engine.js';

function revisionCommit(job: JobRow): string {
  const revision = JSON.parse(job.revision_json || '{}') as { commit?: unknown };
  if (typeof revision.commit !== 'string' || !revision.commit) throw new EngineError('The job has no resolved commit of its workflow.');
  return revision.commit;
}

/** The workflow's sources at the job's commit, in the job's control directory (outside its storage). */
export async function materialize(job: JobRow, workflow: WorkflowRow, paths: JobPaths, config: Config): Promise<string> {
  if (!workflow.repository_url) throw new EngineError('The workflow has no repository.');
  const commit = revisionCommit(job);
  const repo = resolveRepository(config, workflow.repository_url);
  const src = path.join(paths.control, 'src');
  try {
    await materializeCommit(repo, commit, path.join(config.dataDir, 'git-cache', job.workspace_id), src);
  } catch (e) {
    throw new EngineError(`The workflow could not be fetched at commit ${commit}: ${(e as Error).message}`);
  }
  return src;
}

/** A file of the workflow's sources, named relative to them (its main or imports file); refused when it leaves them. */
export function sourceFile(src: string, name: string, what: string): string {
  const file = path.resolve(src, name);
  if (path.isAbsolute(name) || !file.startsWith(src + path.sep))
    throw new EngineError(`The workflow's ${what} "${name}" is not inside its repository.`);
  return file;
}
