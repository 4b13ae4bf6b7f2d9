import type { Config } from '../config.js';
import type { WdlDriverName } from '../engines/wdl/driver.js';
import { findOnPath } from '../executors/find-executable.js';

/** How long a Cromwell server has to answer the start check. */
export const CROMWELL_CHECK_TIMEOUT_MS = 5000;

const SET_ENGINE = 'runyard admin workspace set-engine';

/** The Cromwell URL as it may appear in a message: no credentials, query or fragment. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(not a URL)';
  }
}

/**
 * A URL a Cromwell server may have: http or https, no credentials, query or fragment; without
 * its trailing slashes. Null when it is not one.
 */
export function cromwellUrlOf(text: string): string | null {
  let u: URL;
  try {
    u = new URL(text.trim());
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || u.search || u.hash) return null;
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

/** Whether anything answers HTTP at the URL: any status will do, only no answer at all is a problem. */
async function answers(url: string): Promise<string | null> {
  try {
    const res = await fetch(url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(CROMWELL_CHECK_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return null;
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${CROMWELL_CHECK_TIMEOUT_MS / 1000} s`;
    return err.cause?.code ?? err.cause?.message ?? err.message;
  }
}

/**
 * Why the driver cannot run WDL jobs now, or null when it can: toil and miniwdl need their
 * program on the task PATH (they run as each job's task); cromwell needs its server to answer at
 * `url` (`GET <url>/engine/v1/status`, any HTTP status).
 */
export async function driverProblem(config: Config, driver: WdlDriverName, url: string | null): Promise<string | null> {
  if (driver === 'toil' || driver === 'miniwdl') {
    const program = driver === 'toil' ? 'toil-wdl-runner' : 'miniwdl';
    if (findOnPath(program, config.taskPath)) return null;
    const install = driver === 'toil' ? 'install Toil (Debian: apt-get install toil)' : 'install miniwdl (pip install miniwdl)';
    return (
      `The WDL engine ${driver} cannot start: ${program} is not on the task PATH (RUNYARD_TASK_PATH). ` +
      `Ask the operator to ${install}, or to choose another driver with "${SET_ENGINE}".`
    );
  }
  if (!url) {
    return (
      'The WDL engine cromwell cannot start: no Cromwell server URL is set. Ask the operator to set RUNYARD_CROMWELL_URL, ' +
      `or to give one with "${SET_ENGINE} --driver cromwell --cromwell-url URL", or to give a Cromwell jar for Runyard to run (RUNYARD_CROMWELL_JAR).`
    );
  }
  const problem = await answers(`${url}/engine/v1/status`);
  if (!problem) return null;
  return `The WDL engine cromwell cannot start: the Cromwell server at ${shownUrl(url)} does not answer (${problem}).`;
}
