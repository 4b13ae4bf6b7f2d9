import { after, before, describe } from 'node:test';
import { startAzurite, type AzuriteServer } from '../../../../test/support/azurite.js';
import { azureListing, inputScenarios } from './scenarios.js';
import { ioWorld, type IoWorld } from './world.js';
import { followScenario } from './follow-scenario.js';

describe('job inputs and outputs on Azure Blob Storage (Azurite)', { timeout: 300_000 }, () => {
  let azurite: AzuriteServer;
  let w: IoWorld;
  before(async () => {
    azurite = await startAzurite();
    w = await ioWorld({ RUNYARD_STORAGE_BACKEND: 'azure', RUNYARD_AZURE_CONNECTION_STRING: azurite.connectionString });
  });
  after(async () => {
    await w?.close();
    await azurite?.stop();
  });
  inputScenarios(
    () => w,
    (world, container, prefix) => azureListing(azurite.accountName)(world, container, prefix),
    {
      embeddedType: 'AzureBlobFile',
    },
  );
  followScenario(() => w);
});
