import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { waitFor } from '../scheduler/helpers.js';
import type { WdlWorld } from '../wdl/wdl-world.js';

/*
 * What the tests of the Cromwell server that Runyard runs (RUNYARD_CROMWELL_JAR) share. Neither
 * Java's Cromwell jar nor a way to build one is available here, so `java` on the task PATH is
 * test/support/cromwell-fixture/java.ts, bundled into one program: it follows the java launcher's
 * and Cromwell's contracts for what Runyard uses (-D properties, -jar, `server`, the port,
 * interface and Local backend root), and serves the Cromwell fixture's REST API.
 */

const JAVA_FIXTURE = fileURLToPath(new URL('../../../../test/support/cromwell-fixture/java.ts', import.meta.url));

/** A jar is a zip: its first four bytes are PK\\3\\4 (the launcher checks them). */
export const FIXTURE_JAR = 'PK\u0003\u0004\nfixture.startDelayMs=20\n';

/** Bundles the stand-in `java` into one executable program at file: no imports, so the sandbox shows it and nothing of this checkout. */
export async function buildJavaFixture(file: string): Promise<void> {
  await build({
    entryPoints: [JAVA_FIXTURE],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: file,
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'error',
  });
  chmodSync(file, 0o755);
}

/** The workspace's engine server as the API shows it, and waits for its states. */
export function managedServer(w: () => WdlWorld) {
  const status = async () => w().ok('GET', `/api/v1/cromwell?teamId=${w().ws}`);
  return {
    status,
    /** Until it runs; fails at once if it is found Stopped. */
    running: () =>
      waitFor(
        'the Cromwell server to run',
        async () => {
          const server = await status();
          assert.notEqual(server.status, 'Stopped', server.statusMessage);
          return server.status === 'Running' ? server : undefined;
        },
        120_000,
      ),
    stopped: () =>
      waitFor(
        'the Cromwell server to be Stopped',
        async () => {
          const server = await status();
          return server.status === 'Stopped' ? server : undefined;
        },
        120_000,
      ),
    /** Whether a server answers its status route with 200. */
    answers: async (url: string) => {
      try {
        return (await fetch(`${url}/engine/v1/status`)).status === 200;
      } catch {
        return false;
      }
    },
    /** Cromwell's directory, and the server's own files of it (log, control files, inputs: outside the sandbox's view). */
    engineDir: () => path.join(w().s.config.dataDir, 'engine-servers', w().ws),
    runDir: () => path.join(w().s.config.dataDir, 'run', 'engine-servers', w().ws),
  };
}
