/**
 * The task of a WDL job on miniwdl (see ../miniwdl.ts): runs `miniwdl run` (found on the task
 * PATH) on the workflow in a directory of the job's work directory, with miniwdl's call cache in
 * that work directory, so that a resumed job takes the calls that finished from it; streams
 * miniwdl's log into the job's logs (all of it into engine.log, the calls' starts, ends and stderr
 * into the job's log too); passes SIGTERM and SIGINT on to miniwdl, which stops its
 * calls; then copies each call's stdout and stderr into the job's logs and, when the run
 * succeeded, its outputs into the job's results, or, when it failed, writes why into the failure
 * file. Exit code: 0 when it succeeded; 1 when it failed (with a paragraph in the failure file);
 * 128 + the signal when stopped.
 */
import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { copyCallLogs } from './call-logs.mjs';
import { readControl, type MiniwdlControl } from './control.mjs';
import { failureParagraph } from './failure.mjs';
import { ENGINE_LOG, MiniwdlLogSplit } from './log-split.mjs';
import { copyOutputs } from './outputs.mjs';
import { findOnPath, mainFileToRun, runLayout } from './sources.mjs';

const log = (line: string) => process.stdout.write(`Runyard: ${line}\n`);

const EXIT_OF_SIGNAL = { SIGINT: 130, SIGTERM: 143 } as const;
type StopSignal = keyof typeof EXIT_OF_SIGNAL;

let signalled: StopSignal | null = null;
let stopMiniwdl: ((sig: StopSignal) => void) | null = null;

/** The failure file, written only while it is empty (the first failure is the cause). */
async function fail(control: MiniwdlControl, paragraph: string): Promise<number> {
  log(paragraph);
  try {
    const f = await open(control.failureFile, 'a');
    try {
      if ((await f.stat()).size === 0) await f.write(`${paragraph}\n`);
    } finally {
      await f.close();
    }
  } catch (e) {
    log(`the failure file could not be written: ${(e as Error).message}`);
  }
  return 1;
}

interface MiniwdlEnd {
  code: number | null;
  signal: string | null;
  /** The end of what miniwdl wrote on stderr. */
  stderr: string;
}

/** Runs miniwdl to its end, its stdout and stderr copied to this task's stdout (the job's log) as they come. */
function runMiniwdl(argv: string[], env: NodeJS.ProcessEnv, cwd: string, stopWaitMs: number, split: MiniwdlLogSplit): Promise<MiniwdlEnd> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => split.stdout(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      split.stderr(chunk);
      stderr = (stderr + chunk.toString('utf8')).slice(-8000);
    });
    let killTimer: NodeJS.Timeout | null = null;
    stopMiniwdl = (sig) => {
      // miniwdl traps SIGTERM and SIGINT: it stops its running calls and ends with Terminated.
      child.kill(sig);
      killTimer ??= setTimeout(() => {
        log(`miniwdl did not stop within ${stopWaitMs} ms: killed.`);
        child.kill('SIGKILL');
      }, stopWaitMs);
    };
    if (signalled) stopMiniwdl(signalled);
    child.on('error', (e) => {
      stopMiniwdl = null;
      resolve({ code: 127, signal: null, stderr: `${e.message}` });
    });
    child.on('close', (code, signal) => {
      stopMiniwdl = null;
      if (killTimer) clearTimeout(killTimer);
      resolve({ code, signal, stderr });
    });
  });
}

async function main(): Promise<number> {
  for (const sig of ['SIGTERM', 'SIGINT'] as const)
    process.on(sig, () => {
      signalled ??= sig;
      stopMiniwdl?.(sig);
    });
  const control = await readControl(process.env);
  const miniwdl = await findOnPath('miniwdl', process.env.PATH);
  if (!miniwdl)
    return fail(
      control,
      'miniwdl was not found on the task PATH: the operator installs it (pip install miniwdl) or chooses another WDL driver.',
    );
  const layout = await runLayout(control);
  let mainFile: string;
  try {
    mainFile = await mainFileToRun(control, layout, miniwdl, log);
  } catch (e) {
    return fail(control, (e as Error).message);
  }
  if (signalled) return EXIT_OF_SIGNAL[signalled];

  const argv = [miniwdl, 'run', mainFile, '--input', control.inputsFile, '--dir', `${layout.runDir}/.`, '--verbose', '--no-color'];
  // Call caching in the work directory: every call's outputs are put in it; a resumed run gets them from it.
  const env = {
    ...process.env,
    MINIWDL__CALL_CACHE__DIR: layout.cacheDir,
    MINIWDL__CALL_CACHE__PUT: 'true',
    MINIWDL__CALL_CACHE__GET: control.resume ? 'true' : 'false',
  };
  log(`running ${miniwdl} in ${layout.runDir}.`);
  if (control.resume) log(`resuming: miniwdl takes the calls that finished earlier from its call cache (${layout.cacheDir}).`);
  log(`miniwdl's own log is in ${ENGINE_LOG} beside this one; here are its calls' starts, ends and stderr.`);
  const split = new MiniwdlLogSplit(control.logs);
  const end = await runMiniwdl(argv, env, control.work, control.stopWaitMs, split);
  await split.end();

  const calls = await copyCallLogs(layout.runDir, control.logs, log).catch((e: Error) => {
    log(`the calls' logs could not be copied: ${e.message}`);
    return null;
  });
  // miniwdl caches whole workflows too: a run of a workflow that succeeded before with the same inputs runs no call.
  if (calls?.length === 0 && end.code === 0 && control.resume)
    log('miniwdl took the whole workflow from its call cache: no call ran again.');
  if (signalled) {
    log(`stopped (${signalled}): miniwdl ${end.code === null ? `was killed by ${end.signal}` : `exited with code ${end.code}`}.`);
    return EXIT_OF_SIGNAL[signalled];
  }
  if (end.code !== 0) return fail(control, await failureParagraph(layout.runDir, end, end.stderr));
  const problems = await copyOutputs(layout.runDir, control.results, log);
  if (problems.length)
    return fail(
      control,
      `The workflow succeeded in miniwdl, but its outputs could not be copied into the job's results: ${problems.join('; ')}.`,
    );
  log('the workflow succeeded.');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    process.stderr.write(`${e.stack ?? e.message}\n`);
    process.exit(1);
  },
);
