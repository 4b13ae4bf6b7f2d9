import { randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CromwellError, TERMINAL, type CromwellClient } from './cromwell-api.mjs';
import type { CromwellControl } from './control.mjs';

/** The workflow a job submitted, kept in the task's state directory across attempts and restarts. */
interface SubmittedWorkflow {
  id: string;
  attempt: number;
}

const stateFileOf = (control: CromwellControl) => path.join(control.stateDir, 'workflow.json');

async function readState(control: CromwellControl): Promise<SubmittedWorkflow | null> {
  try {
    const state = JSON.parse(await readFile(stateFileOf(control), 'utf8')) as SubmittedWorkflow;
    return typeof state.id === 'string' && state.id ? state : null;
  } catch {
    return null;
  }
}

async function writeState(control: CromwellControl, state: SubmittedWorkflow): Promise<void> {
  const file = stateFileOf(control);
  await writeFile(`${file}.tmp`, JSON.stringify(state), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

async function blobOf(file: string, type: string): Promise<Blob> {
  return new Blob([await readFile(file)], { type });
}

/** The multipart body of POST /api/workflows/v1 (field names as PartialWorkflowSources reads them). */
export async function submissionForm(control: CromwellControl, id: string): Promise<FormData> {
  const form = new FormData();
  form.append('workflowSource', await blobOf(control.workflowSource, 'text/plain'), path.basename(control.workflowSource));
  form.append('workflowInputs', await blobOf(control.workflowInputs, 'application/json'), 'inputs.json');
  if (control.workflowDependencies)
    form.append(
      'workflowDependencies',
      await blobOf(control.workflowDependencies, 'application/zip'),
      path.basename(control.workflowDependencies),
    );
  const options = {
    read_from_cache: control.resume,
    write_to_cache: true,
    ...(control.workflowLog && { final_workflow_log_dir: path.join(control.workflowLog.root, control.workflowLog.dir) }),
  };
  form.append('workflowOptions', new Blob([JSON.stringify(options)], { type: 'application/json' }), 'options.json');
  form.append('labels', new Blob([JSON.stringify({ 'runyard-job-id': control.jobId })], { type: 'application/json' }), 'labels.json');
  form.append('requestedWorkflowId', id);
  return form;
}

/** The status of a workflow, or null when Cromwell does not know it (404). */
async function statusOrNull(client: CromwellClient, id: string): Promise<string | null> {
  try {
    return await client.status(id);
  } catch (e) {
    if (e instanceof CromwellError && e.status === 404) return null;
    throw e;
  }
}

/**
 * Submits under an id chosen and recorded first, so that a task that dies between the request
 * and its answer finds the workflow again instead of submitting it twice. A refused submission
 * of an id Cromwell knows by then (an earlier request that did land) is that workflow.
 */
async function submit(client: CromwellClient, control: CromwellControl, id: string, log: (line: string) => void): Promise<string> {
  await writeState(control, { id, attempt: control.attempt });
  try {
    await client.submit(await submissionForm(control, id));
  } catch (e) {
    if (!(e instanceof CromwellError) || e.status === null || (await statusOrNull(client, id).catch(() => null)) === null) throw e;
  }
  const cache = control.resume ? ', finished calls taken from its call cache' : '';
  log(`Submitted the workflow to Cromwell at ${client.where}: workflow ${id}${cache}.`);
  // A server of Runyard's has call caching on; Cromwell's own default is off (reference.conf).
  if (control.resume && !control.managedServer)
    log("Resuming relies on the server's call caching (call-caching.enabled): where it is off, the calls that finished run again.");
  return id;
}

/**
 * The Cromwell workflow of this run: the one recorded by this attempt (a restart of its task),
 * or by an earlier one while it runs or once it succeeded (a lost task's workflow goes on in
 * Cromwell); else a new submission.
 */
export async function attachOrSubmit(client: CromwellClient, control: CromwellControl, log: (line: string) => void): Promise<string> {
  const earlier = await readState(control);
  if (!earlier) return submit(client, control, randomUUID(), log);
  const status = await statusOrNull(client, earlier.id);
  // Recorded but unknown to Cromwell: the request may not have landed; the same id again.
  if (status === null) return submit(client, control, earlier.id, log);
  if (!TERMINAL.has(status) || status === 'Succeeded' || earlier.attempt === control.attempt) {
    log(`Re-attaching to Cromwell workflow ${earlier.id} (${status}), submitted by attempt ${earlier.attempt} of this job.`);
    return earlier.id;
  }
  log(`Cromwell workflow ${earlier.id} of attempt ${earlier.attempt} ended ${status}: the workflow is submitted again.`);
  return submit(client, control, randomUUID(), log);
}
