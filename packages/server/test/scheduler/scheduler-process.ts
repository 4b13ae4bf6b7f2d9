// A scheduler in a process of its own, for tests that kill it with SIGKILL (a server crash).
// Usage: node --import tsx scheduler-process.ts <database url> <config as JSON> <scratch directory>
import type { Config } from '../../src/config.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { openStore } from '../../src/store/database.js';
import { testExecutor } from './helpers.js';

const [databaseUrl, configJson, scratch] = process.argv.slice(2);
const config = JSON.parse(configJson) as Config;
const scheduler = new Scheduler({ store: openStore(databaseUrl), config, executors: { local: testExecutor(config, scratch) } });
scheduler.start();
process.stdout.write(`started ${scheduler.id}\n`);
setInterval(() => undefined, 60_000);
