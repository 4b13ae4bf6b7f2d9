import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import {
  assertLegalHistory,
  getJob,
  insertJob,
  insertWorkflow,
  pathsOf,
  setup,
  stdoutOf,
  waitFor,
  waitForStatus,
  type Env,
} from './helpers.js';

describe('scheduler: jobs run to their final status', { timeout: 300_000 }, () => {
  let env: Env;
  let mirror: GitMirror;
  let commit: string;
  before(async () => {
    mirror = createGitMirror();
    const repo = mirror.create('acme/pipe', {
      files: { 'main.nf': 'workflow { }\n', 'nextflow.config': 'profiles {\n  test { params.small = true }\n}\n' },
    });
    commit = repo.heads.main;
    env = await setup({ env: { RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites) } });
    env.scheduler().start();
  });
  after(async () => {
    await env.close();
    mirror.remove();
  });

  it('a bash job completes, with its output in logs/stdout.txt and its parameters as argv and environment', async () => {
    const wf = await insertWorkflow(env, {
      default_command: 'pwd; echo hello from $RUNYARD_JOB_ID; echo "env=$RUNYARD_PARAM_MY_INPUT"; printf "<%s>"',
    });
    const id = await insertJob(env, wf, { parameters: [{ name: 'my-input', textValue: 'a b' }] });
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'completed', job.status_message ?? '');
    assert.equal(job.exit_code, 0);
    assert.ok(job.start_time && job.end_time && job.start_time <= job.end_time);
    assert.equal(job.attempt, 1);
    const out = stdoutOf(env, id);
    assert.match(out, /^Runyard: this job runs on the host, not in the image library\/ubuntu: RUNYARD_JOB_IMAGES=host\.\n/);
    assert.ok(out.includes(`hello from ${id}\n`), out);
    assert.ok(out.endsWith('<--my-input><a b>'), out);
    assert.ok(out.includes('env=a b\n'), out);
    assert.ok(out.includes(`${pathsOf(env, id).work}\n`), out);
    // Reported running unless it ended within the running-mark delay (running-mark.test.ts has both for sure).
    assert.match((await assertLegalHistory(env, id)).map((c) => c.to).join(' '), /^initializing (running )?completed$/);
    assert.deepEqual(JSON.parse(job.external_id!).backend, 'local');
    // No instance type: priced as c5.xlarge (17 cents an hour) for its recorded run time.
    const hours = (Date.parse(job.end_time!) - Date.parse(job.start_time!)) / 3_600_000;
    assert.ok(Math.abs(job.compute_cost_cents - hours * 17) < 0.0002, `${job.compute_cost_cents}`);
  });

  it('a job whose input file is not in its workspace (any more) fails before its task starts, naming the parameter', async () => {
    const marker = path.join(env.scratch, 'input-gone');
    const wf = await insertWorkflow(env, { default_command: `touch ${marker}` });
    const id = await insertJob(env, wf, {
      parameters_json: JSON.stringify([
        { prefix: '--', name: 'reads', parameterKind: 'dataItem', dataItem: { kind: 'File', item: '0123456789abcdef01234567' } },
      ]),
    });
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'failed');
    assert.equal(
      job.status_message,
      'The input "reads" could not be staged: file 0123456789abcdef01234567 is no longer in this workspace.',
    );
    assert.equal(existsSync(marker), false);
    await assertLegalHistory(env, id);
  });

  it('T10: parameter values with ; $() backticks newlines a leading - and quotes reach the job exactly; no marker file appears', async () => {
    const marker = path.join(env.scratch, 'T10-MARK');
    const values = [
      `a; touch ${marker}`,
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      `x\ntouch ${marker}`,
      '-rf',
      `"'`,
      `'; touch ${marker}; '`,
    ];
    const wf = await insertWorkflow(env, { default_command: 'printf "%s\\0" > "$RUNYARD_RESULTS_DIR/args.bin"' });
    const id = await insertJob(env, wf, { parameters: values.map((v, i) => ({ name: `p${i}`, prefix: '', textValue: v })) });
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'completed', stdoutOf(env, id));
    const args = readFileSync(path.join(pathsOf(env, id).results, 'args.bin'), 'utf8')
      .split('\0')
      .slice(0, -1);
    assert.deepEqual(
      args,
      values.flatMap((v, i) => [`p${i}`, v]),
    );
    assert.ok(!existsSync(marker), 'a marker file appeared');
  });

  it("the job's command comes from the job before the workflow's default", async () => {
    const wf = await insertWorkflow(env, { default_command: 'echo default' });
    const id = await insertJob(env, wf, { command: 'echo own' });
    await waitForStatus(env, id, ['completed']);
    assert.match(stdoutOf(env, id), /\nown\n$/);
  });

  it('a failing command fails the job with its exit code and stderr in the log; the status message ends with its last lines', async () => {
    const wf = await insertWorkflow(env, { default_command: "printf 'line %s\\n' 1 2 3 4 5 6 7 8 >&2; echo oops >&2; exit 3" });
    const id = await insertJob(env, wf);
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'failed');
    assert.equal(job.exit_code, 3);
    // The last five lines, without Runyard's note at the head of the log.
    assert.equal(job.status_message, 'The task exited with code 3. The end of its log:\nline 5\nline 6\nline 7\nline 8\noops');
    assert.ok(stdoutOf(env, id).includes('oops\n'));
    await assertLegalHistory(env, id);
  });

  it('a job without a command fails with a clear message', async () => {
    const wf = await insertWorkflow(env, { default_command: '' });
    const id = await insertJob(env, wf);
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'failed');
    assert.equal(job.status_message, 'The job has no command to run.');
    assert.deepEqual(
      (await assertLegalHistory(env, id)).map((c) => c.to),
      ['initializing', 'failed'],
    );
  });

  it('a nextflow job runs with the fixture: .nextflow.log, trace.txt and results, NXF_VER, profile, params file', async () => {
    const wf = await insertWorkflow(env, {
      workflow_type: 'nextflow',
      repository_url: 'https://github.com/acme/pipe',
      main_file: 'main.nf',
      container_name: null,
    });
    const id = await insertJob(env, wf, {
      revision_json: JSON.stringify({ revisionType: 'commit', commit, tag: '', branch: '' }),
      nextflow_version: '22.10.8',
      profile: 'test',
      parameters: [
        { name: 'input', textValue: 'data/*.fq' },
        { name: 'flag', textValue: true },
      ],
    });
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'completed', `${job.status_message}\n${stdoutOf(env, id)}`);
    const paths = pathsOf(env, id);
    const out = stdoutOf(env, id);
    assert.match(out, /N E X T F L O W {2}~ {2}version 22\.10\.8/);
    assert.ok(out.includes(`[runyard-${id}-1]`), out);
    assert.ok(out.includes('Profile: test'));
    assert.ok(existsSync(path.join(paths.logs, '.nextflow.log')));
    const trace = readFileSync(path.join(paths.logs, 'trace.txt'), 'utf8').trim().split('\n');
    assert.equal(trace.length, 3);
    assert.match(trace[0], /^task_id\thash\t/);
    const result = JSON.parse(readFileSync(path.join(paths.results, 'results', 'result.txt'), 'utf8'));
    assert.deepEqual(result.params, { input: 'data/*.fq', flag: true, outdir: path.join(paths.results, 'results') });
    assert.equal(result.version, '22.10.8');
    assert.equal(result.resume, false);
    await assertLegalHistory(env, id);
  });

  it("a lost attempt of a resumable nextflow job is re-run: it writes trace.txt again and skips the lost attempt's finished task", async () => {
    const wf = await insertWorkflow(env, {
      workflow_type: 'nextflow',
      repository_url: 'https://github.com/acme/pipe',
      main_file: 'main.nf',
    });
    // The fixture pauses once PROC_1 has run (not when PROC_1 is cached).
    const id = await insertJob(env, wf, {
      revision_json: JSON.stringify({ commit }),
      resumable: 1,
      parameters: [{ name: 'pauseAfter', textValue: 1 }],
    });
    const running = await waitForStatus(env, id, ['running']);
    await waitFor('PROC_1 to have run', () => stdoutOf(env, id).includes('pausing after PROC_1'));
    const { pid } = JSON.parse(running.external_id!) as { pid: number };
    process.kill(-pid, 'SIGKILL');
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    const out = stdoutOf(env, id);
    assert.equal(job.status, 'completed', `${job.status_message}\n${out}`);
    assert.equal(job.attempt, 2);
    // Nextflow 22.10+ refuses an existing trace file: the second attempt may overwrite it (trace.overwrite).
    assert.doesNotMatch(out, /Trace file already exists/);
    assert.match(out, /Cached process > PROC_1\n/);
    const trace = readFileSync(path.join(pathsOf(env, id).logs, 'trace.txt'), 'utf8')
      .trim()
      .split('\n');
    assert.deepEqual(
      trace.slice(1).map((l) => l.split('\t').slice(3, 5).join(' ')),
      ['PROC_1 CACHED', 'PROC_2 COMPLETED'],
    );
    await assertLegalHistory(env, id);
  });

  it('a nextflow job whose pipeline fails is failed with the exit code', async () => {
    const wf = await insertWorkflow(env, {
      workflow_type: 'nextflow',
      repository_url: 'https://github.com/acme/pipe',
      main_file: 'main.nf',
    });
    const id = await insertJob(env, wf, { revision_json: JSON.stringify({ commit }), parameters: [{ name: 'fail', textValue: true }] });
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'failed');
    assert.equal(job.exit_code, 1);
    assert.match(stdoutOf(env, id), /ERROR ~ Error executing process/);
  });

  it('a nextflow job with no nextflow binary fails with a clear message', async () => {
    const s = env.scheduler({ config: { ...env.config, taskPath: '/usr/bin:/bin', nextflowBin: '' } });
    // This scheduler alone must see the job: a queue of its own is not needed, the other one just must not take it first.
    await Promise.all(env.schedulers.slice(0, -1).map((other) => other.stop()));
    s.start();
    const wf = await insertWorkflow(env, {
      workflow_type: 'nextflow',
      repository_url: 'https://github.com/acme/pipe',
      main_file: 'main.nf',
    });
    const id = await insertJob(env, wf, { revision_json: JSON.stringify({ commit }) });
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'failed');
    assert.equal(
      job.status_message,
      'Nextflow was not found: there is no nextflow executable on the task PATH and RUNYARD_NEXTFLOW_BIN is not set.',
    );
    assert.equal(job.exit_code, null);
    await assertLegalHistory(env, id);
  });

  it('a WDL job whose workspace has no engine server running fails before its task starts, saying to start it', async () => {
    const wf = await insertWorkflow(env, { workflow_type: 'wdl' });
    const id = await insertJob(env, wf);
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(
      job.status_message,
      `The workspace's WDL engine server is stopped: start it ("runyard cromwell start") and run the job again.`,
    );
    assert.equal((await getJob(env, id)).status, 'failed');
  });
});
