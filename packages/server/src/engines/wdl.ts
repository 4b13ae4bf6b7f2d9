import { EngineError, type Engine } from './engine.js';

/** WDL jobs are stored now and run by a later issue (Cromwell). */
export const wdlEngine: Engine = {
  prepare(): Promise<never> {
    return Promise.reject(new EngineError('WDL jobs are not run yet.'));
  },
};
