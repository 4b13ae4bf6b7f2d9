import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { convertNextflowToJson, RunyardClient, type JobBodyInput } from '@runyard/client';
import { usingPostgres } from '../../../test/support/database.js';
import { createGitMirror, type GitMirror } from '../../../test/support/git-repos.js';
import {
  readTrace,
  REAL_PIPELINE,
  realNextflow,
  realNextflowSkip,
  resumeOutcome,
  type TraceRow,
} from '../../../test/support/real-nextflow.js';
import { startRunningServer, type RunningServer } from '../../../test/support/running-server.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli, tempDir } from './support/run-cli.js';

const real = realNextflow();
const ID = /^[0-9a-f]{24}$/;
const WAIT = ['--wait-completion', '--request-interval', '0.2', '--wait-time', '300'];

/**
 * A real Nextflow (scripts/install-nextflow.sh) run by Runyard on the local executor, driven as a
 * user drives it, with the runyard command line: a pipeline of three processes from a git
 * repository, with channels, publishDir, its nextflow.config and a profile of it, parameters from a
 * parametersFile in JSON and in YAML; its last process fails on a first run, and `runyard job
 * resume` finishes it without running again the tasks that had completed (their hashes are CACHED
 * in the resumed job's trace). Three JVM runs. On SQLite only: what it proves does not depend on
 * the database, which the fixture-based job tests cover on PostgreSQL.
 */
describe('a real Nextflow through Runyard: run, fail, resume from the cache', { timeout: 600_000 }, () => {
  const skip = realNextflowSkip(usingPostgres());
  let s: RunningServer;
  let mirror: GitMirror;
  let client: RunyardClient;
  let conn: string[];
  let ws: string;
  let projectId: string;
  let workflowId: string;
  const paramsFiles: Record<string, string> = {};
  before(async () => {
    if (skip || typeof real === 'string') return;
    mirror = createGitMirror();
    const repo = mirror.create('acme/split-upper', { files: REAL_PIPELINE });
    s = await startRunningServer({
      RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites),
      RUNYARD_NEXTFLOW_BIN: real.bin,
      RUNYARD_NEXTFLOW_HOME: real.home,
    });
    ws = s.admin.workspaceId;
    client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
    projectId = await client.createProject(ws, 'demo');
    workflowId = await client.importWorkflow(ws, { workflowUrl: repo.url, workflowName: 'split-upper', repositoryPlatform: 'github' });
    const local = mkdtempSync(path.join(os.tmpdir(), 'runyard-nf-params-'));
    writeFileSync(path.join(local, 'params.json'), JSON.stringify({ greeting: 'bonjour', failFirst: true }));
    writeFileSync(path.join(local, 'params.yaml'), 'greeting: hola\nn: 4\n');
    const datasets = await client.datasets(ws, 'demo');
    for (const name of ['params.json', 'params.yaml']) paramsFiles[name] = (await datasets.uploadFile(path.join(local, name), 'Data'))._id;
    conn = connectionArgs(s.url, s.admin.apikey, ws);
  });
  after(async () => {
    client?.close();
    await s?.close();
    mirror?.remove();
  });

  const run = (args: string[]) => runCli([...args, ...conn], { timeoutMs: 320_000 });
  /** The job's trace, downloaded with `runyard job logs --download`. */
  async function traceOf(id: string): Promise<TraceRow[]> {
    const dir = tempDir('runyard-nf-logs-');
    const r = await run(['job', 'logs', '--job-id', id, '--download', dir]);
    assert.equal(r.code, 0, r.stderr);
    return readTrace(path.join(dir, 'trace.txt'));
  }
  /** The job's published results, downloaded with `runyard job results --download`: a file's text. */
  async function resultsOf(id: string): Promise<(file: string) => string> {
    const dir = tempDir('runyard-nf-results-');
    const r = await run(['job', 'results', '--job-id', id, '--download', dir]);
    assert.equal(r.code, 0, r.stderr);
    return (file) => readFileSync(path.join(dir, 'results', file), 'utf8');
  }
  /**
   * Submits a job with the body the public client builds (convertNextflowToJson), asking for the
   * installed version: the client's own list of versions (22.10.8, 24.04.4, 25.x) holds none that
   * Maven Central serves whole (docs/nextflow.md). Waits until it has finished: its id and document.
   */
  async function submit(input: Partial<JobBodyInput>): Promise<{ id: string; doc: Record<string, unknown> }> {
    const body = convertNextflowToJson({ projectId, workflowId, nextflowVersion: (real as { version: string }).version, ...input });
    const reply = await fetch(`${s.url}/api/v2/jobs?teamId=${ws}`, {
      method: 'POST',
      headers: { apikey: s.admin.apikey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await reply.text();
    assert.equal(reply.status, 200, text);
    const id = (JSON.parse(text) as { jobId: string }).jobId;
    await client.waitJobCompletion(id, ws, { requestInterval: 0.2, waitTime: 300 });
    return { id, doc: (await client.getJobStatus(id, ws)) as Record<string, unknown> };
  }
  const byName = (rows: TraceRow[]) => rows.map((r) => `${r.name} ${r.status}`).sort();

  it('a job fails in its last process; job resume runs only that one, the others CACHED with the same hashes', { skip }, async () => {
    const { id, doc } = await submit({
      jobName: 'first',
      parametersFile: { dataItem: { kind: 'File', item: paramsFiles['params.json'] } },
      nextflowProfile: 'small',
      resumable: true,
    });
    assert.equal(doc.status, 'failed', doc.statusMessage as string);
    const firstTrace = await traceOf(id);
    // The profile `small` (n = 2) over the config's n = 3; MERGE failed, after every other task completed.
    assert.deepEqual(byName(firstTrace), [
      'MERGE FAILED',
      'SPLIT (1) COMPLETED',
      'SPLIT (2) COMPLETED',
      'UPPER (1) COMPLETED',
      'UPPER (2) COMPLETED',
    ]);

    const resume = await run(['job', 'resume', '--job-id', id, ...WAIT]);
    assert.equal(resume.code, 0, resume.stderr);
    const resumedId = resume.stdout.trim();
    assert.match(resumedId, ID);
    const resumed = await client.getJobStatus(resumedId, ws);
    assert.equal(resumed.status, 'completed', resumed.statusMessage as string);
    const secondTrace = await traceOf(resumedId);
    // Every task that completed in the first run is CACHED, by its hash; only MERGE ran (a new hash: workflow.resume is in its script).
    const outcome = resumeOutcome(firstTrace, secondTrace);
    assert.equal(outcome.completedFirst.length, 4);
    assert.deepEqual(outcome.cached, outcome.completedFirst);
    assert.deepEqual(outcome.ran, ['MERGE COMPLETED']);
    // publishDir: the cached tasks' files too, into the resumed job's results.
    const published = await resultsOf(resumedId);
    assert.equal(published('merged.txt'), 'BONJOUR 1\nBONJOUR 2\n');
    assert.equal(published('split/chunk_1.txt'), 'bonjour 1\n');
    assert.equal(published('upper/up_chunk_2.txt'), 'BONJOUR 2\n');
  });

  it('a parametersFile in YAML, without the profile: the config defaults under the file', { skip }, async () => {
    const { id, doc } = await submit({ jobName: 'yaml', parametersFile: { dataItem: { kind: 'File', item: paramsFiles['params.yaml'] } } });
    assert.equal(doc.status, 'completed', doc.statusMessage as string);
    const trace = await traceOf(id);
    assert.equal(trace.filter((t) => t.name.startsWith('SPLIT')).length, 4);
    assert.ok(trace.every((t) => t.status === 'COMPLETED'));
    assert.equal((await resultsOf(id))('merged.txt'), 'HOLA 1\nHOLA 2\nHOLA 3\nHOLA 4\n');
  });
});
