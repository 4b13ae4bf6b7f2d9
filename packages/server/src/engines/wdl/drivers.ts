import { cromwellDriver } from './cromwell.js';
import type { WdlDriver, WdlDriverName } from './driver.js';
import { miniwdlDriver } from './miniwdl.js';
import { toilDriver } from './toil.js';

/** The WDL drivers this Runyard has, by name. */
export const WDL_DRIVER_TABLE: Partial<Record<WdlDriverName, WdlDriver>> = {
  toil: toilDriver,
  cromwell: cromwellDriver,
  miniwdl: miniwdlDriver,
};
