import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WORKFLOW_COLUMNS } from '@runyard/client';
import { createGitMirror, type CreatedRepo, type GitMirror } from '../../../test/support/git-repos.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli, tempDir } from './support/run-cli.js';

const ID = /^[0-9a-f]{24}$/;
const NEXTFLOW = { 'main.nf': 'workflow { println "hi" }\n', 'nextflow.config': 'params.x = 1\n' };
const WDL = { 'wf/hello.wdl': 'version 1.0\nworkflow hello {}\n', 'wf/other.wdl': 'version 1.0\nworkflow other {}\n' };

interface WorkflowDoc {
  _id: string;
  name: string;
  workflowType: string;
  mainFile: string | null;
  archived: { status: boolean };
  repository?: { platform: string; url: string };
}

const tsv = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'));

describe('runyard workflow import|list|branches (local git mirrors)', () => {
  let mirror: GitMirror;
  let s: TestServer;
  let conn: string[];
  let rnatoy: CreatedRepo;
  let deep: CreatedRepo;
  const ids: Record<string, string> = {};
  before(async () => {
    mirror = createGitMirror();
    rnatoy = mirror.create('acme/rnatoy', { files: NEXTFLOW, branches: { dev: { 'extra.nf': 'x' } } });
    mirror.create('acme/wdl-pipes', { files: WDL });
    mirror.create('acme/single-wdl', { files: { 'only.wdl': 'version 1.0\nworkflow only {}\n' } });
    mirror.create('acme/empty', { files: { 'README.md': 'nothing here' } });
    deep = mirror.create('group/sub/deep', { files: NEXTFLOW, defaultBranch: 'trunk' });
    s = await startTestServer({
      listen: true,
      env: { RUNYARD_GIT_URL_REWRITES: JSON.stringify({ ...mirror.rewrites, 'https://gitlab.com/': `file://${mirror.root}/` }) },
    });
    conn = connectionArgs(s.url, s.admin.apikey, s.admin.workspaceId);
  });
  after(async () => {
    await s.close();
    mirror.remove();
  });

  async function ok(args: string[]): Promise<{ stdout: string; stderr: string }> {
    const r = await runCli([...args, ...conn]);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  }

  async function fails(args: string[], code = 1): Promise<string> {
    const r = await runCli([...args, ...conn]);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
    return r.stderr;
  }

  it('an empty workspace: "No workflows found" on stderr, exit 0', async () => {
    const r = await ok(['workflow', 'list']);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'No workflows found\n');
    assert.deepEqual(JSON.parse((await ok(['workflow', 'list', '--output-format', 'json'])).stdout), []);
  });

  it('imports a Nextflow workflow: the id on stdout, a line on stderr', async () => {
    const r = await ok([
      'workflow',
      'import',
      '-w',
      'https://github.com/acme/rnatoy',
      '--workflow-name',
      'rnatoy',
      '-d',
      'https://docs.example.org/rnatoy',
      '--cost-limit',
      '12.5',
      '--workflow-description',
      'RNA toy',
    ]);
    assert.match(r.stdout, /^[0-9a-f]{24}\n$/);
    ids.rnatoy = r.stdout.trim();
    assert.equal(r.stderr, `Workflow "rnatoy" imported from https://github.com/acme/rnatoy into workspace ${s.admin.workspaceId}.\n`);
    const [wf] = JSON.parse((await ok(['workflow', 'list', '--output-format', 'json'])).stdout) as (WorkflowDoc & {
      docsLink: string;
      description: string;
      executionConfiguration: { costLimitsInUsd: { value: number } };
    })[];
    assert.equal(wf._id, ids.rnatoy);
    assert.equal(wf.workflowType, 'nextflow');
    assert.equal(wf.mainFile, 'main.nf');
    assert.equal(wf.docsLink, 'https://docs.example.org/rnatoy');
    assert.equal(wf.description, 'RNA toy');
    assert.equal(wf.executionConfiguration.costLimitsInUsd.value, 12.5);
  });

  it('a WDL repository with several .wdl files needs --main-file; the server names the candidates', async () => {
    const err = await fails(['workflow', 'import', '-w', 'https://github.com/acme/wdl-pipes', '--workflow-name', 'hello']);
    assert.equal(err.split('\n').length, 2, 'one line');
    assert.match(err, /^Error: .*wf\/hello\.wdl.*wf\/other\.wdl.* \(HTTP 400\)\n$/);
    const r = await ok([
      'workflow',
      'import',
      '-w',
      'https://github.com/acme/wdl-pipes',
      '--workflow-name',
      'hello',
      '--main-file',
      'wf/hello.wdl',
    ]);
    ids.hello = r.stdout.trim();
    assert.match(ids.hello, ID);
    const single = await ok(['workflow', 'import', '-w', 'https://github.com/acme/single-wdl.git', '--workflow-name', 'only']);
    ids.only = single.stdout.trim();
    const all = JSON.parse((await ok(['workflow', 'list', '--output-format', 'json'])).stdout) as WorkflowDoc[];
    const byName = Object.fromEntries(all.map((w) => [w.name, w]));
    assert.deepEqual([byName.hello.workflowType, byName.hello.mainFile], ['wdl', 'wf/hello.wdl']);
    assert.deepEqual([byName.only.workflowType, byName.only.mainFile], ['wdl', 'only.wdl']);
    assert.equal(byName.only.repository?.url, 'https://github.com/acme/single-wdl', '.git is dropped');
  });

  it('bad imports exit 1 with the server message on one line', async () => {
    const refused = await fails(['workflow', 'import', '-w', 'http://127.0.0.1/a/b', '--workflow-name', 'x']);
    assert.match(refused, /^Error: [^\n]*http[^\n]* \(HTTP 400\)\n$/);
    const elsewhere = await fails(['workflow', 'import', '-w', 'https://evil.example/a/b', '--workflow-name', 'x']);
    assert.match(elsewhere, /^Error: [^\n]*evil\.example[^\n]* \(HTTP 400\)\n$/);
    const empty = await fails(['workflow', 'import', '-w', 'https://github.com/acme/empty', '--workflow-name', 'empty']);
    assert.match(empty, /^Error: [^\n]+ \(HTTP 400\)\n$/);
    const missing = await fails(['workflow', 'import', '-w', 'https://github.com/acme/missing', '--workflow-name', 'missing']);
    assert.match(missing, /^Error: [^\n]+ \(HTTP 404\)\n$/);
    const notUrl = await fails(['workflow', 'import', '-w', 'not a url', '--workflow-name', 'x']);
    assert.equal(notUrl, 'Error: "not a url" is not a repository URL.\n');
  });

  it('usage errors exit 2: missing options, an unknown platform, a bad cost limit', async () => {
    for (const args of [
      ['workflow', 'import', '--workflow-name', 'x'],
      ['workflow', 'import', '-w', 'https://github.com/acme/rnatoy'],
      ['workflow', 'import', '-w', 'https://github.com/a/b', '--workflow-name', 'x', '--repository-platform', 'sourceforge'],
      ['workflow', 'import', '-w', 'https://github.com/a/b', '--workflow-name', 'x', '--cost-limit', 'lots'],
      ['workflow', 'branches'],
      ['workflow', 'list', '--output-format', 'xml'],
    ]) {
      const err = await fails(args, 2);
      assert.match(err, /^Error: /, args.join(' '));
    }
    const r = await runCli(['workflow', 'list', '--platform-url', s.url, '--apikey', s.admin.apikey]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Missing option: --workspace-id/);
  });

  it('a wrong API key exits 4', async () => {
    const r = await runCli(['workflow', 'list', ...connectionArgs(s.url, 'not-a-real-key-at-all', s.admin.workspaceId)]);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /^Error: Authentication failed/);
  });

  it('list: tab-separated when piped, json documents, csv with process_workflow_list columns', async () => {
    const rows = tsv((await ok(['workflow', 'list'])).stdout);
    assert.equal(rows.length, 3);
    // Every column is present in these workflows.
    const present = [...WORKFLOW_COLUMNS];
    for (const row of rows) assert.equal(row.length, present.length);
    const rna = rows.find((r) => r[0] === ids.rnatoy)!;
    assert.deepEqual(rna, [
      ids.rnatoy,
      'rnatoy',
      'false',
      'main.nf',
      'nextflow',
      'user',
      'rnatoy',
      'github',
      'https://github.com/acme/rnatoy',
      'true',
    ]);

    const csv = (await ok(['workflow', 'list', '--output-format', 'csv'])).stdout.trimEnd().split('\n');
    assert.equal(csv[0], present.join(','));
    assert.equal(csv.length, 4);
    assert.ok(csv.includes(`${ids.hello},hello,false,wf/hello.wdl,wdl,user,wdl-pipes,github,https://github.com/acme/wdl-pipes,true`));

    const all = (await ok(['workflow', 'list', '--output-format', 'csv', '--all-fields'])).stdout.split('\n')[0].split(',');
    for (const c of [...present, 'owner.id', 'createdAt', 'executionConfiguration.costLimitsInUsd.value']) assert.ok(all.includes(c), c);

    const cwd = tempDir('runyard-wf-out-');
    const r = await runCli(['workflow', 'list', '--output-basename', 'workflows', ...conn], { cwd });
    assert.equal(r.code, 0, r.stderr);
    const file = path.join(cwd, 'workflows.txt');
    assert.equal(r.stderr, `Wrote 3 workflows to ${file}\n`);
    const txt = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    assert.match(txt[0], /^ID {2,}NAME {2,}ARCHIVED {2,}MAIN FILE {2,}TYPE {2,}GROUP {2,}REPOSITORY {2,}PLATFORM {2,}URL {2,}PRIVATE$/);
    assert.equal(txt.length, 4);
  });

  it('branches: name, commit sha and protected, in every output format', async () => {
    const rows = tsv((await ok(['workflow', 'branches', '--workflow-name', 'rnatoy'])).stdout);
    assert.deepEqual(rows, [
      ['dev', rnatoy.heads.dev, 'false'],
      ['main', rnatoy.heads.main, 'false'],
    ]);
    const json = JSON.parse((await ok(['workflow', 'branches', '--workflow-name', 'rnatoy', '--output-format', 'json'])).stdout) as {
      name: string;
      commit: { sha: string; url: string };
      protected: boolean;
    }[];
    assert.deepEqual(
      json.map((b) => [b.name, b.commit.sha]),
      [
        ['dev', rnatoy.heads.dev],
        ['main', rnatoy.heads.main],
      ],
    );
    const csv = (await ok(['workflow', 'branches', '--workflow-name', 'rnatoy', '--output-format', 'csv'])).stdout.trimEnd().split('\n');
    assert.equal(csv[0], 'name,commit.sha,commit.url,protected');
    assert.match(csv[1], new RegExp(`^dev,${rnatoy.heads.dev},[^,]*,false$`));
  });

  it('duplicate names: branches needs --last (the newest) or --repository-platform', async () => {
    const r = await ok([
      'workflow',
      'import',
      '-w',
      'https://gitlab.com/group/sub/deep',
      '--workflow-name',
      'rnatoy',
      '--repository-platform',
      'gitlab',
    ]);
    ids.rnatoyGitlab = r.stdout.trim();
    const err = await fails(['workflow', 'branches', '--workflow-name', 'rnatoy']);
    assert.match(
      err,
      /^Error: More than one workflow is named "rnatoy": [^\n]*Use --last for the most recently imported one, or --repository-platform\.\n$/,
    );
    assert.ok(err.includes(ids.rnatoy) && err.includes(ids.rnatoyGitlab), 'names both ids');
    assert.deepEqual(tsv((await ok(['workflow', 'branches', '--workflow-name', 'rnatoy', '--last'])).stdout), [
      ['trunk', deep.heads.trunk, 'false'],
    ]);
    const github = tsv((await ok(['workflow', 'branches', '--workflow-name', 'rnatoy', '--repository-platform', 'github'])).stdout);
    assert.deepEqual(
      github.map((b) => b[0]),
      ['dev', 'main'],
    );
    const bitbucket = await fails(['workflow', 'branches', '--workflow-name', 'rnatoy', '--repository-platform', 'bitbucketServer']);
    assert.match(bitbucket, /^Error: No workflow named "rnatoy" on platform bitbucketServer; found on github, gitlab\.\n$/);
  });

  it('an unknown workflow name exits 1 with a clear message', async () => {
    const err = await fails(['workflow', 'branches', '--workflow-name', 'nope']);
    assert.equal(err, `Error: No workflow named "nope" in workspace ${s.admin.workspaceId}.\n`);
    const partial = await fails(['workflow', 'branches', '--workflow-name', 'rna'], 1);
    assert.match(partial, /No workflow named "rna"/, 'the name must match exactly, not as a search prefix');
  });
});
