import { EngineError, type Engine } from './engine.js';
import { containerEngine } from './container.js';
import { nextflowEngine } from './nextflow.js';
import { wdlEngine } from './wdl/wdl-engine.js';

/** The engine of each workflow type (jobs.workflow_type). */
export const ENGINES: Readonly<Record<string, Engine>> = {
  nextflow: nextflowEngine,
  docker: containerEngine,
  wdl: wdlEngine,
};

export function engineFor(workflowType: string): Engine {
  const engine = Object.hasOwn(ENGINES, workflowType) ? ENGINES[workflowType] : undefined;
  if (!engine) throw new EngineError(`Jobs of workflow type "${workflowType}" cannot be run.`);
  return engine;
}
