// Preloaded with `node --import`: appends to the file named by CODE_CACHE_REPORT, for every
// vm.Script compiled with a code cache, whether V8 refused that cache ("true") or used it ("false").
// (The bin reads vm.Script from the same module object, so it gets this class.)
import { appendFileSync } from 'node:fs';
import vm from 'node:vm';

const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options) {
    super(source, options);
    if (options?.cachedData) appendFileSync(process.env.CODE_CACHE_REPORT, `${this.cachedDataRejected}\n`);
  }
};
