import { after, before, describe } from 'node:test';
import { inputScenarios, s3Listing } from './scenarios.js';
import { ioWorld, type IoWorld } from './world.js';
import { followScenario } from './follow-scenario.js';

describe('job inputs and outputs on the local store', { timeout: 300_000 }, () => {
  let w: IoWorld;
  before(async () => {
    w = await ioWorld();
  });
  after(() => w?.close());
  inputScenarios(() => w, s3Listing, { embeddedType: 'S3File' });
  followScenario(() => w);
});
