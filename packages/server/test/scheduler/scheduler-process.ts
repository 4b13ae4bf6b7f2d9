// A scheduler in a process of its own, for tests that kill it with SIGKILL (a server crash).
// Usage: node --import tsx scheduler-process.ts <database url> <config as JSON>
import type { Config } from '../../src/config.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { openStore } from '../../src/store/database.js';

const [databaseUrl, configJson] = process.argv.slice(2);
const scheduler = new Scheduler({ store: openStore(databaseUrl), config: JSON.parse(configJson) as Config });
scheduler.start();
process.stdout.write(`started ${scheduler.id}\n`);
setInterval(() => undefined, 60_000);
