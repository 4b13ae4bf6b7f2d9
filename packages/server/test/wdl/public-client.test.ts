import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../scheduler/helpers.js';
import { startWdlWorld, type WdlWorld } from './wdl-world.js';

/**
 * `cloudos job run --workflow-name hello-wdl --project-name wdl-demo --wdl-mainfile hello.wdl
 * -p hello.name=Ada --cromwell-token T --wait-completion`, replayed request by request as the
 * public client sends it (wire-api §6, "cloudos job run", with its WDL step 4 and §1.2's headers):
 * the Cromwell calls carry `Accept` and `Authorization: Bearer <engine token>` and no apikey, every
 * other call `Content-type` and `apikey`. The public client (Python) cannot be installed here.
 */
describe('the public client runs a WDL workflow (cloudos job run --wdl-mainfile)', { timeout: 600_000 }, () => {
  let w: WdlWorld;
  let token: string;
  before(async () => {
    w = await startWdlWorld({ RUNYARD_WDL_ENGINE: 'toil' });
    token = (await w.ok('GET', `/api/runyard/engine-token?teamId=${w.ws}`)).token;
  });
  after(() => w.close());

  const get = async (url: string, headers: Record<string, string>) => {
    const r = await fetch(`${w.s.url}${url}`, { headers });
    const text = await r.text();
    assert.equal(r.status, 200, `GET ${url}: ${r.status} ${text}`);
    return JSON.parse(text);
  };
  const apikeyHeaders = () => ({ 'Content-type': 'application/json', apikey: w.s.admin.apikey });
  const cromwellHeaders = () => ({ Accept: 'application/json', Authorization: `Bearer ${token}` });

  it('detects the workflow, starts the engine server with the engine token, submits and waits for completion', async () => {
    const ws = w.ws;
    // 1-3, 6: detect_workflow and is_module (count, then the page), Job.workflow_id: mainFile must match.
    const count = (await get(`/api/v3/workflows?teamId=${ws}&search=hello-wdl`, apikeyHeaders())).paginationMetadata['Pagination-Count'];
    const listed = (await get(`/api/v3/workflows?teamId=${ws}&search=hello-wdl&pageSize=${count}`, apikeyHeaders())).workflows;
    const wf = listed.find((x: any) => x.name === 'hello-wdl' && x.mainFile === 'hello.wdl' && !x.archived?.status);
    assert.equal(wf.workflowType, 'wdl');
    assert.equal(wf.repository.platform, 'github');
    // 4: the engine server, with the Cromwell header only.
    let cromwell = await get(`/api/v1/cromwell?teamId=${ws}`, cromwellHeaders());
    assert.equal(cromwell.status, 'Stopped');
    const put = await fetch(`${w.s.url}/api/v1/cromwell/restart?teamId=${ws}`, { method: 'PUT', headers: cromwellHeaders() });
    assert.equal(put.status, 200, await put.text());
    cromwell = await waitFor('the engine server to run', async () => {
      const c = await get(`/api/v1/cromwell?teamId=${ws}`, cromwellHeaders());
      return c.status === 'Running' ? c : undefined;
    });
    // 5: the project; 7: the queues, of which the first with executor cromwell.
    const project = (await get(`/api/v2/projects?teamId=${ws}&search=wdl-demo`, apikeyHeaders())).projects.find(
      (p: any) => p.name === 'wdl-demo',
    );
    const queues = await get(`/api/v1/teams/aws/v2/job-queues?teamId=${ws}`, apikeyHeaders());
    const queue = queues.find((q: any) => q.executor === 'cromwell');
    assert.ok(queue, JSON.stringify(queues));
    // 10: send_job with the WDL body (§2.2 skeleton 5): prefix "", resumable forced true, cromwellCloudResources.
    const body = await w.body(
      { 'hello.name': 'Ada' },
      {
        project: project._id,
        workflow: wf._id,
        name: 'new_job',
        cromwellCloudResources: cromwell._id,
        batch: { dockerLogin: false, enabled: true, jobQueue: queue._id },
      },
    );
    const posted = await fetch(`${w.s.url}/api/v2/jobs?teamId=${ws}`, {
      method: 'POST',
      headers: apikeyHeaders(),
      body: JSON.stringify(body),
    });
    const reply = JSON.parse(await posted.text());
    assert.equal(posted.status, 200, JSON.stringify(reply));
    // 11: wait_job_completion.
    const job = await waitFor(
      'the job to end',
      async () => {
        const j = await get(`/api/v1/jobs/${reply.jobId}?teamId=${ws}`, apikeyHeaders());
        return ['completed', 'failed', 'aborted'].includes(j.status) ? j : undefined;
      },
      300_000,
    );
    assert.equal(job.status, 'completed', job.statusMessage ?? '');
    assert.equal(job.jobType, 'cromwellAWS');
    assert.equal(readFileSync(path.join(w.paths(reply.jobId).results, 'results', 'greeting.txt'), 'utf8'), 'hello Ada\nhello Ada\n');
    assert.equal(readFileSync(path.join(w.paths(reply.jobId).results, 'results', 'n.txt'), 'utf8').trim(), '2');
  });

  it('a Bearer token is not accepted on other routes, and a wrong one not on the Cromwell routes', async () => {
    const jobs = await fetch(`${w.s.url}/api/v2/jobs?teamId=${w.ws}`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(jobs.status, 401);
    const wrong = await fetch(`${w.s.url}/api/v1/cromwell?teamId=${w.ws}`, {
      headers: { Accept: 'application/json', Authorization: 'Bearer nope' },
    });
    assert.equal(wrong.status, 401);
  });
});
