import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, call } from '../wire.js';
import { bashBody, jobCount, jobWorld, nextflowBody, submit, type JobWorld } from './fixtures.js';

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

  it('refuses a job larger than the local executor, naming the limit and its setting; nothing is stored', async () => {
    const before = await jobCount(w);
    const cpus = assertError(await submit(w, nextflowBody(w)), 400, 'VALIDATION_FAILED');
    assert.equal(
      cpus,
      "The job asks for 4 vCPUs (instance type c5.xlarge), more than this server's local executor has (2, RUNYARD_LOCAL_CPUS); " +
        'choose a smaller instance type or raise RUNYARD_LOCAL_CPUS.',
    );
    // t3.large: 2 vCPUs, 8 GiB.
    const big = { instanceType: 't3.large', masterInstance: { requestedInstance: { type: 't3.large' } } };
    const memory = assertError(await submit(w, nextflowBody(w, big)), 400, 'VALIDATION_FAILED');
    assert.match(memory, /asks for 8 GiB of memory \(instance type t3\.large\).*\(6 GiB, RUNYARD_LOCAL_MEMORY_GIB\)/);
    // A bash job is sized by its cpu and ram, not by its instance type.
    const bash = assertError(await submit(w, bashBody(w, { resourceRequirements: { cpu: 3, ram: 1 } })), 400, 'VALIDATION_FAILED');
    assert.match(bash, /asks for 3 vCPUs \(its cpu and ram\).*ask for less or raise RUNYARD_LOCAL_CPUS\./);
    assert.equal(await jobCount(w), before);
  });

  it('a job that fits is queued, and its document reports what its task is given', async () => {
    const small = { instanceType: 'c5.large', masterInstance: { requestedInstance: { type: 'c5.large' } } };
    const nf = await submit(w, nextflowBody(w, small));
    assert.equal(nf.statusCode, 200, nf.body);
    const doc = await documentOf(nf.json().jobId);
    assert.equal(doc.status, 'queued');
    assert.deepEqual(doc.resourceRequirements, { cpu: 2, ram: 4 });
    assert.deepEqual(doc.masterInstance.requestedInstance, { type: 'c5.large', asSpot: false });
    assert.deepEqual(doc.masterInstance.usedInstance, { type: 'c5.large', name: 'local-executor', asSpot: false, vcpus: 2, memoryGiB: 4 });

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
