import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, call } from '../wire.js';
import { bashBody, jobCount, jobWorld, nextflowBody, submit, type JobWorld } from './fixtures.js';
import { createBody } from '../sessions/world.js';

// A small local executor: 2 CPUs and 6 GiB, shared by every queue and workspace.
describe('job admission at submission (POST /api/v2/jobs)', () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld({ RUNYARD_LOCAL_CPUS: '2', RUNYARD_LOCAL_MEMORY_GIB: '6' });
  });
  after(() => w.close());

  const documentOf = async (jobId: string) => (await call(w.s, 'GET', `/api/v1/jobs/${jobId}?teamId=${w.ws}`)).json();

  it('refuses an instance type the catalogue lacks, naming it and where the catalogue is; nothing is stored', async () => {
    const before = await jobCount(w);
    for (const body of [
      nextflowBody(w, { instanceType: 'c5.huge', masterInstance: { requestedInstance: { type: 'c5.huge' } } }),
      // The master instance is the one used (a clone overrides only it).
      nextflowBody(w, { masterInstance: { requestedInstance: { type: 'c5.huge' } } }),
      bashBody(w, { instanceType: 'c5.huge', masterInstance: undefined }),
    ]) {
      const message = assertError(await submit(w, body), 400, 'VALIDATION_FAILED');
      assert.match(message, /Instance type "c5\.huge" is not one this server offers/);
      assert.match(message, /GET \/api\/runyard\/instance-types \(runyard instance-types list\)/);
    }
    assert.equal(await jobCount(w), before);
  });

  it('runs a job larger than the local executor with what it has; its document says so, and it keeps its instance type', async () => {
    // The public client's default: c5.xlarge (4 vCPUs, 8 GiB) on this 2-CPU, 6-GiB executor.
    const nf = await submit(w, nextflowBody(w));
    assert.equal(nf.statusCode, 200, nf.body);
    const doc = await documentOf(nf.json().jobId);
    assert.deepEqual(doc.masterInstance.usedInstance, { type: 'c5.xlarge', name: 'local-executor', asSpot: false, vcpus: 2, memoryGiB: 6 });
    assert.deepEqual(doc.resourceRequirements, { cpu: 2, ram: 6 });
    assert.equal(
      doc.resourcesNote,
      'asked for c5.xlarge: 4 vCPUs, 8 GiB; this server gives at most 2 vCPUs, 6 GiB (RUNYARD_LOCAL_CPUS, RUNYARD_LOCAL_MEMORY_GIB), ' +
        'so it runs with 2 vCPUs, 6 GiB and costs what c5.xlarge costs.',
    );
    // A bash job is sized by its cpu and ram.
    const bash = await submit(w, bashBody(w, { resourceRequirements: { cpu: 3, ram: 1 } }));
    assert.equal(bash.statusCode, 200, bash.body);
    const bashDoc = await documentOf(bash.json().jobId);
    assert.equal(bashDoc.masterInstance.usedInstance.vcpus, 2);
    assert.match(
      bashDoc.resourcesNote,
      /^asked for 3 vCPUs, 1 GiB; this server gives at most 2 vCPUs, 6 GiB .*so it runs with 2 vCPUs, 1 GiB\.$/,
    );
  });

  it('refuses a command or a parameter value larger in bytes than a task can be given (one environment variable), not only in characters', async () => {
    const before = await jobCount(w);
    // 60,000 characters (within the schema's 65,536), 180,000 bytes: more than Linux passes in one variable (128 KiB).
    const wide = '\u2713'.repeat(60_000);
    const command = assertError(await submit(w, bashBody(w, { command: `: ${wide}; echo ok` })), 400, 'VALIDATION_FAILED');
    assert.match(command, /^command is 180011 bytes \(UTF-8\), more than the 130048 a task can be given/);
    const value = bashBody(w, { parameters: [{ prefix: '--', name: 'big', parameterKind: 'textValue', textValue: wide }] });
    assert.match(assertError(await submit(w, value), 400, 'VALIDATION_FAILED'), /^parameters: "big" is 180000 bytes/);
    assert.equal(await jobCount(w), before);
    // As many characters of ASCII fit.
    const ascii = await submit(w, bashBody(w, { command: `: ${'x'.repeat(60_000)}; echo ok` }));
    assert.equal(ascii.statusCode, 200, ascii.body);
  });

  it('a job that fits is queued, and its document reports what its task is given (and no note)', async () => {
    const small = { instanceType: 'c5.large', masterInstance: { requestedInstance: { type: 'c5.large' } } };
    const nf = await submit(w, nextflowBody(w, small));
    assert.equal(nf.statusCode, 200, nf.body);
    const doc = await documentOf(nf.json().jobId);
    assert.equal(doc.status, 'queued');
    assert.deepEqual(doc.resourceRequirements, { cpu: 2, ram: 4 });
    assert.deepEqual(doc.masterInstance.requestedInstance, { type: 'c5.large', asSpot: false });
    assert.deepEqual(doc.masterInstance.usedInstance, { type: 'c5.large', name: 'local-executor', asSpot: false, vcpus: 2, memoryGiB: 4 });
    assert.equal(doc.resourcesNote, undefined);

    const bash = await submit(w, bashBody(w, { resourceRequirements: { cpu: 2, ram: 1.5 } }));
    assert.equal(bash.statusCode, 200, bash.body);
    const bashDoc = await documentOf(bash.json().jobId);
    assert.deepEqual(bashDoc.resourceRequirements, { cpu: 2, ram: 1.5 });
    assert.deepEqual(bashDoc.masterInstance.usedInstance, {
      type: 'c5.xlarge',
      name: 'local-executor',
      asSpot: false,
      vcpus: 2,
      memoryGiB: 1.5,
    });
  });
});

// The operator's strict mode: what does not fit is refused, jobs and sessions alike.
describe('job admission in strict mode (RUNYARD_STRICT_RESOURCES)', () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld({ RUNYARD_LOCAL_CPUS: '2', RUNYARD_LOCAL_MEMORY_GIB: '6', RUNYARD_STRICT_RESOURCES: 'true' });
  });
  after(() => w.close());

  it('refuses a job or a session larger than the local executor, naming the limit and its setting; nothing is stored', async () => {
    const before = await jobCount(w);
    const cpus = assertError(await submit(w, nextflowBody(w)), 400, 'VALIDATION_FAILED');
    assert.equal(
      cpus,
      "The job asks for 4 vCPUs (instance type c5.xlarge), more than this server's local executor has (2, RUNYARD_LOCAL_CPUS) " +
        '(RUNYARD_STRICT_RESOURCES refuses what does not fit); choose a smaller instance type or raise RUNYARD_LOCAL_CPUS.',
    );
    // t3.large: 2 vCPUs, 8 GiB.
    const big = { instanceType: 't3.large', masterInstance: { requestedInstance: { type: 't3.large' } } };
    const memory = assertError(await submit(w, nextflowBody(w, big)), 400, 'VALIDATION_FAILED');
    assert.match(memory, /asks for 8 GiB of memory \(instance type t3\.large\).*\(6 GiB, RUNYARD_LOCAL_MEMORY_GIB\)/);
    const bash = assertError(await submit(w, bashBody(w, { resourceRequirements: { cpu: 3, ram: 1 } })), 400, 'VALIDATION_FAILED');
    assert.match(bash, /asks for 3 vCPUs \(its cpu and ram\).*ask for less or raise RUNYARD_LOCAL_CPUS\./);
    assert.equal(await jobCount(w), before);
    const session = await call(
      w.s,
      'POST',
      `/api/v1/interactive-sessions?teamId=${w.ws}`,
      createBody(w.projectId, { backend: 'regular', instanceType: 'c5.xlarge' }),
    );
    assert.match(assertError(session, 400, 'VALIDATION_FAILED'), /^The session asks for 4 vCPUs \(instance type c5\.xlarge\)/);
  });
});
