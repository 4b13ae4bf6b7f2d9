import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunyardClient, SessionMount } from '@runyard/client';
import { runCli, type CliResult } from './support/run-cli.js';
import { createJupyterArgs, JUPYTER, NOWHERE, startSessionServer, type SessionServer } from './support/session-server.js';

// runyard link, datasets link, job results|logs --link and interactive-session create --link
// against `runyard server start`: bash jobs write results, one Jupyter session gets them mounted.

const S = '0123456789abcdef01234567';
const J = '0123456789abcdef01234568';

describe('runyard link: bad input is a usage error (exit 2) found before anything is sent', () => {
  for (const [args, message] of [
    [['link', 'az://account/container/x', '--session-id', S], /Azure Blob Storage paths \(az:\/\/\) are not supported for linking/],
    [
      ['link', 's3://b/a/x,s3://c/b/x/', '--session-id', S],
      /Duplicate mount name 'x' detected\. The folders 's3:\/\/b\/a\/x' and 's3:\/\/c\/b\/x\/' would both be mounted with the same name/,
    ],
    [['link', 's3://b/a/x,demo/Data/x', '--session-id', S], /Duplicate mount name 'x' detected/],
    [['link', 's3://b/x', '--session-id', 'nope'], /A session id is 24 hexadecimal characters/],
    [['link', 's3://b/x'], /--session-id/],
    [['link', '--session-id', S], /Either --job-id or PATH argument must be provided/],
    [['link', 's3://b/x', '--job-id', J, '--session-id', S], /Cannot use both --job-id and PATH argument/],
    [['link', 's3://b/x', '--results', '--session-id', S], /--results, --workdir, and --logs flags can only be used with --job-id/],
    [['link', 's3://bucket', '--session-id', S], /S3 URL must include a key after the bucket/],
    [['link', 'Data/x', '--session-id', S], /'Data\/x' is a File Explorer path: give its project with --project-name/],
    [['link', 'demo/Data/x,other/Data/y', '--session-id', S], /File Explorer paths of two projects \('demo' and 'other'\)/],
    [['link', 'other/Data/x', '--project-name', 'demo', '--session-id', S], /is a path of project 'other', not of --project-name 'demo'/],
    [['link', 'demo/Data/../x', '--session-id', S], /is not a folder or file name/],
    [['datasets', 'link', 'az://account/container/x', '--session-id', S], /Azure Blob Storage paths \(az:\/\/\) are not supported/],
    [['datasets', 'link', 'Data/x', '--session-id', 'abc'], /A session id is 24 hexadecimal characters/],
    [['job', 'results', '--job-id', J, '--link'], /--session-id is required when using --link flag/],
    [['job', 'workdir', '--job-id', J, '--link', '--status', '--session-id', S], /cannot be used with/],
    [['job', 'logs', '--job-id', J, '--link', '--follow', '--session-id', S], /cannot be used with/],
  ] as Array<[string[], RegExp]>) {
    it(args.join(' '), async () => {
      const r = await runCli([...args, ...NOWHERE]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /Is the server running/);
      assert.equal(r.stdout, '');
    });
  }
});

describe('runyard link into a running Jupyter session', { skip: !JUPYTER && 'jupyter is not installed', timeout: 900_000 }, () => {
  let srv: SessionServer;
  let client: RunyardClient;
  let ws = '';
  let bucket = '';
  /** Three completed bash jobs (one for each test, so that no two mounts are of one folder): ids, results URLs, Analyses Results folders. */
  const jobs: Array<{ id: string; results: string; folder: string }> = [];
  let session = '';

  const run = (args: string[]) => runCli([...args, ...srv.conn], { timeoutMs: 600_000 });
  async function ok(args: string[]): Promise<CliResult> {
    const r = await run(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(!r.stdout.includes(srv.apikey) && !r.stderr.includes(srv.apikey), 'the API key is never printed');
    return r;
  }
  const mounts = async (): Promise<Record<string, SessionMount>> =>
    Object.fromEntries((await client.getFuseFilesystemsStatus(session, ws)).map((m) => [m.mountName, m]));

  before(async () => {
    srv = await startSessionServer();
    ({ client, ws } = srv);
    bucket = `runyard-${ws}`;
    await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
    const ds = await client.datasets(ws, 'demo');
    for (const name of ['first', 'second', 'third']) {
      const id = await client.sendJob({
        workspaceId: ws,
        projectName: 'demo',
        workflowName: 'ubuntu',
        workflowType: 'docker',
        // A results folder of its own name: job results (the first folder of the results) are mounted by that name.
        command: `mkdir -p "$RUNYARD_RESULTS_DIR/${name}-tables" && echo "${name} results" > "$RUNYARD_RESULTS_DIR/${name}-tables/out.txt" && echo done`,
        jobName: name,
      });
      const done = await client.waitJobCompletion(id, ws, { waitTime: 300, requestInterval: 0.5 });
      assert.equal(done.status, 'completed', `job ${name}`);
      const folder = (await ds.listFolderContent('Analyses Results')).folders.find((f) => f.name.includes(id))?.name;
      assert.ok(folder, `the Analyses Results folder of job ${id}`);
      jobs.push({ id, results: await client.getJobResults(id, ws), folder });
    }
  });
  after(() => srv?.close());

  it('interactive-session create --link of a File Explorer folder: the session comes up with it mounted', async () => {
    const source = `demo/Analyses Results/${jobs[0].folder}`;
    const r = await ok(
      createJupyterArgs('linked', ['--link', source, '--watch', '--watch-interval', '0.5', '--max-wait-time', '8m', '--verbose']),
    );
    session = r.stdout.trim();
    assert.match(session, /^[0-9a-f]{24}$/);
    // The body as cloudos-cli builds it: the project's name in s3BucketName, the path in s3Prefix.
    assert.match(r.stderr, new RegExp(`"s3BucketName": "demo",\\n\\s+"s3Prefix": "Analyses Results/${jobs[0].folder}/"`));
    assert.ok(r.stderr.includes(`Linked folder: ~/mounts/${jobs[0].folder} (${source})`), r.stderr);
    assert.ok(r.stderr.includes(`Successfully mounted folder: ${source}`), r.stderr);
    const m = (await mounts())[jobs[0].folder];
    assert.equal(m?.status, 'mounted', JSON.stringify(m));
  });

  it("link --job-id --results: the job's results folder is mounted; linking it again is refused", async () => {
    assert.ok(session, 'the session of the first test');
    const r = await ok(['link', '--job-id', jobs[1].id, '--session-id', session, '--results']);
    assert.match(r.stderr, new RegExp(`Linking folders from job ${jobs[1].id} to interactive session ${session}`));
    assert.match(r.stderr, /Linking results directory\.\.\./);
    assert.equal(r.stdout, `Successfully mounted S3 folder: ${jobs[1].results}\n`);
    const name = jobs[1].results.split('/').pop()!;
    assert.equal((await mounts())[name]?.status, 'mounted');

    const again = await run(['link', '--job-id', jobs[1].id, '--session-id', session, '--results']);
    assert.equal(again.code, 1, again.stderr);
    assert.match(again.stderr, /Failed to link results: .*already exists with 'mounted' status/);
  });

  it('link s3://… of a job’s results folder; job logs --link; datasets link of a File Explorer folder', async () => {
    assert.ok(session, 'the session of the first test');
    const tables = jobs[2].results;
    assert.ok(tables.startsWith(`s3://${bucket}/`) && tables.endsWith('/results/third-tables'), tables);
    const linked = await ok(['link', tables, '--session-id', session]);
    assert.equal(linked.stdout, `Successfully mounted S3 folder: ${tables}\n`);
    assert.match(linked.stderr, /Linking path to interactive session [0-9a-f]{24}\.\.\.\n[\s\S]*Linking operation completed successfully!/);

    const logs = await ok(['job', 'logs', '--job-id', jobs[1].id, '--link', '--session-id', session]);
    assert.match(logs.stdout, /^Job output \(standard output\): s3:\/\//m);
    assert.match(logs.stderr, /Successfully mounted S3 folder: s3:\/\/\S+\/logs\n/);

    const explorer = await ok([
      'datasets',
      'link',
      `Analyses Results/${jobs[2].folder}`,
      '--project-name',
      'demo',
      '--session-id',
      session,
    ]);
    assert.equal(explorer.stdout, `Successfully mounted File Explorer folder: Analyses Results/${jobs[2].folder}\n`);

    const all = await mounts();
    for (const name of ['third-tables', 'logs', jobs[2].folder])
      assert.equal(all[name]?.status, 'mounted', `${name}: ${JSON.stringify(all[name])}`);

    // A file of the File Explorer cannot be linked (looked at before the mount is asked for).
    const file = await run([
      'datasets',
      'link',
      `Analyses Results/${jobs[2].folder}/third-tables/out.txt`,
      '--project-name',
      'demo',
      '--session-id',
      session,
    ]);
    assert.equal(file.code, 1, file.stderr);
    assert.match(file.stderr, /Linking files or virtual folders is not supported/);
    // A session that does not exist: the server says so.
    const nowhere = await run(['link', `${jobs[2].results}/x`, '--session-id', S]);
    assert.equal(nowhere.code, 1, nowhere.stderr);
    assert.match(nowhere.stderr, new RegExp(`Session not found: ${S}`));
  });
});
