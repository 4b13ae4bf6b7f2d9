import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_COLUMNS } from '@runyard/client';
import { startTestServer, type Tenant, type TestServer } from '../../../test/support/server.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli, tempDir } from './support/run-cli.js';

describe('runyard project create|list', () => {
  let s: TestServer;
  let t: Tenant;
  const ids: Record<string, string> = {};
  let conn: string[];
  before(async () => {
    s = await startTestServer({ listen: true });
    t = await s.newTenant('projects-cli');
    conn = connectionArgs(s.url, t.apikey, t.workspaceId);
  });
  after(() => s.close());

  it('an empty workspace: "No projects found" on stderr, nothing on stdout, exit 0', async () => {
    const r = await runCli(['project', 'list', ...conn]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'No projects found\n');
    const json = await runCli(['project', 'list', '--output-format', 'json', ...conn]);
    assert.deepEqual(JSON.parse(json.stdout), []);
  });

  it('create prints the new id on stdout', async () => {
    for (const name of ['alpha', 'beta', 'gamma']) {
      const r = await runCli(['project', 'create', '--new-project', name, ...conn]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^[0-9a-f]{24}\n$/);
      ids[name] = r.stdout.trim();
    }
  });

  it('a duplicate name exits 1 with the server 409 message on one line', async () => {
    const r = await runCli(['project', 'create', '--new-project', 'alpha', ...conn]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'Error: A project named "alpha" already exists in this workspace. (HTTP 409)\n');
  });

  it('create without --new-project is a usage error', async () => {
    const r = await runCli(['project', 'create', ...conn]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--new-project/);
  });

  it('list piped: one tab-separated line per project (no header)', async () => {
    for (const format of [[], ['--output-format', 'table'], ['--output-format', 'stdout']]) {
      const r = await runCli(['project', 'list', ...format, ...conn]);
      assert.equal(r.code, 0, r.stderr);
      const rows = r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t'));
      assert.equal(rows.length, 3);
      for (const row of rows) assert.equal(row.length, 7);
      assert.deepEqual(rows.map((row) => row[1]).sort(), ['alpha', 'beta', 'gamma']);
      assert.deepEqual(rows.find((row) => row[1] === 'beta')!.slice(0, 3), [ids.beta, 'beta', 'projects-cli Tester']);
    }
  });

  it('list --output-format json: the project documents', async () => {
    const r = await runCli(['project', 'list', '--output-format', 'json', ...conn]);
    assert.equal(r.code, 0, r.stderr);
    const projects = JSON.parse(r.stdout) as { _id: string; name: string; team: { id: string }; jobCount: number }[];
    assert.equal(projects.length, 3);
    assert.deepEqual(Object.fromEntries(projects.map((p) => [p.name, p._id])), ids);
    for (const p of projects) {
      assert.equal(p.team.id, t.workspaceId);
      assert.equal(p.jobCount, 0);
    }
  });

  it('list --output-format csv: process_project_list columns; --all-fields adds every field', async () => {
    const r = await runCli(['project', 'list', '--output-format', 'csv', ...conn]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines[0], PROJECT_COLUMNS.join(','));
    assert.equal(lines.length, 4);
    const beta = lines.find((l) => l.startsWith(`${ids.beta},`))!.split(',');
    assert.equal(beta[1], 'beta');
    assert.equal(beta[3], 'projects-cli');
    assert.equal(beta[5], 'projects-cli@example.org');

    const all = await runCli(['project', 'list', '--output-format', 'csv', '--all-fields', ...conn]);
    const header = all.stdout.split('\n')[0].split(',');
    for (const c of [...PROJECT_COLUMNS, 'team.id', 'projectData', 'projectJobs']) assert.ok(header.includes(c), c);

    const table = await runCli(['project', 'list', '--all-fields', ...conn]);
    assert.equal(table.stdout.split('\n')[0].split('\t').length, header.length);
  });

  it('--page gives one page of --page-size; --page-size alone only changes the request size', async () => {
    const page2 = await runCli(['project', 'list', '--page', '2', '--page-size', '2', '--output-format', 'json', ...conn]);
    assert.equal(page2.code, 0, page2.stderr);
    assert.equal(JSON.parse(page2.stdout).length, 1);
    const page1 = await runCli(['project', 'list', '--page', '1', '--output-format', 'json', ...conn]);
    assert.equal(JSON.parse(page1.stdout).length, 3);
    const small = await runCli(['project', 'list', '--page-size', '2', '--output-format', 'json', ...conn]);
    assert.equal(JSON.parse(small.stdout).length, 3, 'all projects, fetched two at a time');
    const beyond = await runCli(['project', 'list', '--page', '9', ...conn]);
    assert.equal(beyond.code, 0);
    assert.equal(beyond.stderr, 'No projects found\n');
    for (const bad of [
      ['--page', '0'],
      ['--page-size', '1001'],
      ['--page', 'two'],
    ]) {
      const r = await runCli(['project', 'list', ...bad, ...conn]);
      assert.equal(r.code, 2, bad.join(' '));
      assert.match(r.stderr, /^Error: option '--page/);
    }
    const format = await runCli(['project', 'list', '--output-format', 'xml', ...conn]);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /Allowed choices are table/);
  });

  it('--output-basename writes <basename>.<ext> and says where on stderr', async () => {
    const cwd = tempDir('runyard-out-');
    for (const [format, ext] of [
      ['csv', 'csv'],
      ['json', 'json'],
      ['table', 'txt'],
    ] as const) {
      const r = await runCli(['project', 'list', '--output-format', format, '--output-basename', 'projects', ...conn], { cwd });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '');
      const file = path.join(cwd, `projects.${ext}`);
      assert.equal(r.stderr, `Wrote 3 projects to ${file}\n`);
      assert.ok(existsSync(file));
    }
    assert.equal(JSON.parse(readFileSync(path.join(cwd, 'projects.json'), 'utf8')).length, 3);
    assert.equal(readFileSync(path.join(cwd, 'projects.csv'), 'utf8').split('\n')[0], PROJECT_COLUMNS.join(','));
    const txt = readFileSync(path.join(cwd, 'projects.txt'), 'utf8').split('\n');
    assert.match(
      txt[0],
      /^ID {2,}NAME {2,}OWNER {2,}CREATED {2,}WORKFLOWS {2,}JOBS {2,}SESSIONS$/,
      'a file gets the aligned table with its header',
    );
    assert.equal(txt.filter(Boolean).length, 4);
  });

  it('lists more projects than one page holds', async () => {
    const big = await s.newTenant('projects-many');
    const bigConn = connectionArgs(s.url, big.apikey, big.workspaceId);
    const names = Array.from({ length: 12 }, (_, i) => `p${String(i).padStart(2, '0')}`);
    const created = await Promise.all(names.map((name) => runCli(['project', 'create', '--new-project', name, ...bigConn])));
    for (const r of created) assert.equal(r.code, 0, r.stderr);
    const r = await runCli(['project', 'list', '--output-format', 'json', ...bigConn]);
    assert.deepEqual((JSON.parse(r.stdout) as { name: string }[]).map((p) => p.name).sort(), names);
    const paged = await runCli(['project', 'list', '--page-size', '5', '--output-format', 'json', ...bigConn]);
    assert.equal(JSON.parse(paged.stdout).length, 12);
  });
});
