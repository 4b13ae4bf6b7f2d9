/**
 * The task of a WDL job run by a Cromwell server (Runyard's Cromwell driver, ../cromwell.ts):
 * submits the workflow over Cromwell's REST API (or re-attaches to the one this job submitted),
 * follows it to its end printing progress lines (the job's log), and copies its calls' stdout and
 * stderr and Cromwell's log of the workflow (engine.log) into the job's logs and its outputs into
 * the job's results. SIGTERM/SIGINT abort the workflow in Cromwell. Exit code: 0 when it
 * succeeded; 1 when it failed (with a paragraph in the failure file); 128 + the signal when stopped.
 */
import { writeFile } from 'node:fs/promises';
import { copyCallLogs } from './call-logs.mjs';
import { readControl, type CromwellControl } from './control.mjs';
import { CromwellClient } from './cromwell-api.mjs';
import { copyEngineLog, engineLogWaitMs } from './engine-log.mjs';
import { failureParagraph } from './failure.mjs';
import { abortWorkflow, follow } from './follow.mjs';
import { copyOutputs } from './outputs.mjs';
import { attachOrSubmit } from './submission.mjs';

const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

const EXIT_OF_SIGNAL = { SIGINT: 130, SIGTERM: 143 } as const;

async function fail(control: CromwellControl, paragraph: string): Promise<number> {
  log(paragraph);
  await writeFile(control.failureFile, `${paragraph}\n`).catch((e: Error) => log(`The failure file could not be written: ${e.message}`));
  return 1;
}

/** Call logs and the engine's log always; outputs when the workflow succeeded; why, when it failed. */
async function conclude(client: CromwellClient, control: CromwellControl, id: string, status: string): Promise<number> {
  const md = await client.metadata(id);
  const runs = await copyCallLogs(client, id, md, control.logs, log);
  await copyEngineLog(client, id, control, md, log, engineLogWaitMs(control.pollMs));
  for (const r of runs) if (r.run.callCaching?.hit) log(`Call ${r.logName.replace(/^call-/, '')} was taken from Cromwell's call cache.`);
  if (status === 'Failed') return fail(control, await failureParagraph(md, runs, control.logs));
  if (status === 'Aborted') return fail(control, `The Cromwell workflow ${id} was aborted outside Runyard.`);
  const { outputs } = await client.outputs(id);
  const problems = await copyOutputs(outputs ?? {}, md.workflowRoot ?? null, control.workflowInputs, control.results, log);
  if (problems.length)
    return fail(
      control,
      `The workflow succeeded in Cromwell, but output files could not be copied into the job's results: ${problems.join('; ')}. ` +
        `The task must be able to read Cromwell's execution directory${md.workflowRoot ? ` (${md.workflowRoot})` : ''}.`,
    );
  log(`Workflow ${id} succeeded.`);
  return 0;
}

async function main(): Promise<number> {
  const stop = new AbortController();
  let signalled: keyof typeof EXIT_OF_SIGNAL | null = null;
  for (const sig of ['SIGTERM', 'SIGINT'] as const)
    process.on(sig, () => {
      signalled ??= sig;
      stop.abort();
    });
  const control = await readControl(process.env);
  const client = new CromwellClient(control.url);
  try {
    const id = await attachOrSubmit(client, control, log);
    const status = await follow(client, id, control.pollMs, stop.signal, log);
    if (status === 'stopped') {
      // Within the executor's grace: what abortWorkflow leaves of abortWaitMs bounds the wait for the engine's log.
      const deadline = Date.now() + control.abortWaitMs;
      const end = await abortWorkflow(client, id, control.abortWaitMs, control.pollMs, log);
      if (end === 'Aborted') {
        const md = await client.metadata(id).catch(() => null);
        if (md) {
          await copyCallLogs(client, id, md, control.logs, log).catch(() => undefined);
          await copyEngineLog(client, id, control, md, log, Math.min(engineLogWaitMs(control.pollMs), Math.max(0, deadline - Date.now())));
        }
      }
      return EXIT_OF_SIGNAL[signalled ?? 'SIGTERM'];
    }
    return await conclude(client, control, id, status);
  } catch (e) {
    if (signalled) return EXIT_OF_SIGNAL[signalled];
    return fail(control, (e as Error).message);
  }
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    process.stderr.write(`${e.stack ?? e.message}\n`);
    process.exit(1);
  },
);
