import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGitMirror, type GitMirror } from '../../../test/support/git-repos.js';
import { startTestServer, type Tenant, type TestServer } from '../../../test/support/server.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli } from './support/run-cli.js';

const ID = /^[0-9a-f]{24}$/;

interface WorkflowDoc {
  _id: string;
  name: string;
  workflowType: string;
  group: string;
  isModule: boolean;
  containerName?: string;
  defaultCommand?: string;
  description: string;
  archived: { status: boolean };
}

describe('runyard workflow create-docker|archive|unarchive', () => {
  let mirror: GitMirror;
  let s: TestServer;
  let conn: string[];
  let dora: Tenant;
  const ids: Record<string, string> = {};
  before(async () => {
    mirror = createGitMirror();
    mirror.create('acme/rnatoy', { files: { 'main.nf': 'workflow {}\n' } });
    s = await startTestServer({ listen: true, env: { RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites) } });
    conn = connectionArgs(s.url, s.admin.apikey, s.admin.workspaceId);
    dora = await s.newTenant('dora');
  });
  after(async () => {
    await s.close();
    mirror.remove();
  });

  async function run(args: string[], c = conn) {
    return runCli([...args, ...c]);
  }

  async function listed(extra: string[] = []): Promise<WorkflowDoc[]> {
    const r = await run(['workflow', 'list', '--output-format', 'json', ...extra]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as WorkflowDoc[];
  }

  it('create-docker prints the id of the new container workflow', async () => {
    const r = await run([
      'workflow',
      'create-docker',
      '--workflow-name',
      'picard',
      '--container-name',
      'broadinstitute/picard:2.27',
      '--default-command',
      'picard',
      '--description',
      'Picard tools',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^[0-9a-f]{24}\n$/);
    ids.picard = r.stdout.trim();
    assert.equal(r.stderr, `Container workflow "picard" (broadinstitute/picard:2.27) created in workspace ${s.admin.workspaceId}.\n`);
    const m = await run([
      'workflow',
      'create-docker',
      '--workflow-name',
      'multiqc',
      '--container-name',
      'ewels/multiqc',
      '--group',
      'system-tools',
    ]);
    assert.equal(m.code, 0, m.stderr);
    ids.multiqc = m.stdout.trim();

    const byName = Object.fromEntries((await listed()).map((w) => [w.name, w]));
    assert.equal(byName.picard._id, ids.picard);
    assert.equal(byName.picard.workflowType, 'docker');
    assert.equal(byName.picard.containerName, 'broadinstitute/picard:2.27');
    assert.equal(byName.picard.defaultCommand, 'picard');
    assert.equal(byName.picard.description, 'Picard tools');
    assert.equal(byName.picard.group, 'user');
    assert.equal(byName.multiqc.group, 'system-tools');
    assert.equal(byName.multiqc.isModule, true);
  });

  it('create-docker: a duplicate is 409, a non-admin key gets the 403 message, both exit 1 on one line', async () => {
    const dup = await run(['workflow', 'create-docker', '--workflow-name', 'picard', '--container-name', 'x/y']);
    assert.equal(dup.code, 1);
    assert.equal(dup.stdout, '');
    assert.match(dup.stderr, /^Error: [^\n]*"picard"[^\n]* \(HTTP 409\)\n$/);
    const forbidden = await run(
      ['workflow', 'create-docker', '--workflow-name', 'x', '--container-name', 'y'],
      connectionArgs(s.url, dora.apikey, dora.workspaceId),
    );
    assert.equal(forbidden.code, 1);
    assert.equal(forbidden.stdout, '');
    assert.match(forbidden.stderr, /^Error: [^\n]+ \(HTTP 403\)\n$/);
    const missing = await run(['workflow', 'create-docker', '--workflow-name', 'x']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--container-name/);
  });

  it('archive by name hides the workflow from "workflow list"; --archived shows it; unarchive brings it back', async () => {
    const r = await run(['workflow', 'archive', '--workflow-name', 'picard']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${ids.picard}\n`);
    assert.equal(r.stderr, `Workflow "picard" (${ids.picard}) archived.\n`);
    assert.deepEqual(
      (await listed()).map((w) => w.name),
      ['multiqc'],
    );
    const archived = await listed(['--archived']);
    assert.deepEqual(
      archived.map((w) => [w._id, w.archived.status]),
      [[ids.picard, true]],
    );
    const table = await run(['workflow', 'list', '--archived']);
    assert.match(table.stdout, new RegExp(`^${ids.picard}\tpicard\ttrue\t`));

    const again = await run(['workflow', 'archive', '--workflow-name', 'picard']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stderr, `Workflow "picard" (${ids.picard}) is already archived.\n`);

    const back = await run(['workflow', 'unarchive', '--workflow-name', 'picard']);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(back.stderr, `Workflow "picard" (${ids.picard}) unarchived.\n`);
    assert.deepEqual((await listed()).map((w) => w.name).sort(), ['multiqc', 'picard']);
    const none = await run(['workflow', 'list', '--archived']);
    assert.equal(none.code, 0);
    assert.equal(none.stderr, 'No workflows found\n');
  });

  it('archive and unarchive by --workflow-id', async () => {
    const r = await run(['workflow', 'archive', '--workflow-id', ids.multiqc]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, `Workflow "multiqc" (${ids.multiqc}) archived.\n`);
    assert.ok(!(await listed()).some((w) => w._id === ids.multiqc));
    const u = await run(['workflow', 'unarchive', '--workflow-id', ids.multiqc]);
    assert.equal(u.code, 0, u.stderr);
    assert.ok((await listed()).some((w) => w._id === ids.multiqc));
    const unknown = await run(['workflow', 'archive', '--workflow-id', '0123456789abcdef01234567']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^Error: [^\n]*0123456789abcdef01234567[^\n]* \(HTTP 404\)\n$/);
    const other = await run(['workflow', 'archive', '--workflow-id', ids.multiqc], connectionArgs(s.url, dora.apikey, dora.workspaceId));
    assert.equal(other.code, 1, "another workspace's workflow is not found");
    assert.match(other.stderr, /\(HTTP 404\)\n$/);
  });

  it('with duplicate names, archive picks one not yet archived; --last chooses the newest', async () => {
    const first = await run(['workflow', 'import', '-w', 'https://github.com/acme/rnatoy', '--workflow-name', 'toy']);
    assert.equal(first.code, 0, first.stderr);
    const firstId = first.stdout.trim();
    assert.equal((await run(['workflow', 'archive', '--workflow-name', 'toy'])).code, 0);
    // A second import of the same name is allowed once the first is archived.
    const second = await run(['workflow', 'import', '-w', 'https://github.com/acme/rnatoy', '--workflow-name', 'toy']);
    assert.equal(second.code, 0, second.stderr);
    const secondId = second.stdout.trim();
    assert.match(secondId, ID);
    // archive: only the second is not archived yet.
    const a = await run(['workflow', 'archive', '--workflow-name', 'toy']);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stdout, `${secondId}\n`);
    // unarchive: both are archived now, so the name is ambiguous without --last.
    const amb = await run(['workflow', 'unarchive', '--workflow-name', 'toy']);
    assert.equal(amb.code, 1);
    assert.match(
      amb.stderr,
      /^Error: More than one workflow is named "toy": [^\n]*Use --last for the most recently imported one, or --workflow-id\.\n$/,
    );
    assert.ok(amb.stderr.includes(firstId) && amb.stderr.includes(secondId));
    const last = await run(['workflow', 'unarchive', '--workflow-name', 'toy', '--last']);
    assert.equal(last.code, 0, last.stderr);
    assert.equal(last.stdout, `${secondId}\n`);
  });

  it('usage and lookup errors', async () => {
    const neither = await run(['workflow', 'archive']);
    assert.equal(neither.code, 2);
    assert.equal(neither.stderr, 'Error: Say which workflow to archive: --workflow-name NAME or --workflow-id ID.\n');
    const both = await run(['workflow', 'unarchive', '--workflow-name', 'picard', '--workflow-id', ids.picard]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /^Error: option '--workflow-name <name>' cannot be used with option '--workflow-id <id>'/);
    const badId = await run(['workflow', 'archive', '--workflow-id', 'picard']);
    assert.equal(badId.code, 2);
    assert.match(
      badId.stderr,
      /^Error: option '--workflow-id <id>' argument 'picard' is invalid\. A workflow id is 24 hexadecimal characters/,
    );
    const unknown = await run(['workflow', 'archive', '--workflow-name', 'nope']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, `Error: No workflow named "nope" in workspace ${s.admin.workspaceId}.\n`);
    const noRepo = await run(['workflow', 'branches', '--workflow-name', 'picard']);
    assert.equal(noRepo.code, 1);
    assert.equal(noRepo.stderr, `Error: Workflow "picard" (${ids.picard}) is a docker workflow without a git repository.\n`);
  });
});
