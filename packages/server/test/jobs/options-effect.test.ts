import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { JobSubmitBody } from '@runyard/contract';
import { OPTIONS_WITHOUT_EFFECT } from '../../src/scheduler/job-options.js';
import { startBashJobServer, type BashJobServer } from '../scheduler/bash-job-server.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Every field of the job submission body (POST /api/v2/jobs), each either applied (the test file
 * named proves its effect, and must name the field) or noted in the job's log as without effect
 * here (checked below on a real job), or sent by the public client as a fixed or derived value
 * that carries no choice of the user's (said why). A field added to the contract and missing here
 * fails the first test: no option is silently accepted without effect.
 */
type Fate = { applied: string } | { noted: unknown } | { carriesNoChoice: string };

const FIELDS: Record<string, Fate> = {
  parameters: { applied: 'packages/server/test/jobs/submit.test.ts' },
  'parameters.name': { applied: 'packages/server/test/bash-corpus/corpus.test.ts' },
  'parameters.prefix': { applied: 'packages/server/test/bash-corpus/corpus.test.ts' },
  'parameters.parameterKind': { applied: 'packages/server/test/bash-corpus/corpus.test.ts' },
  'parameters.textValue': { applied: 'packages/server/test/bash-corpus/corpus.test.ts' },
  'parameters.dataItem': { applied: 'packages/server/test/job-io/scenarios.ts' },
  'parameters.dataItem.kind': { applied: 'packages/server/test/job-io/scenarios.ts' },
  'parameters.dataItem.item': { applied: 'packages/server/test/job-io/scenarios.ts' },
  'parameters.globPattern': { applied: 'packages/server/test/staging/glob.test.ts' },
  'parameters.folder': { applied: 'packages/server/test/staging/glob.test.ts' },
  'parameters.columnName': { applied: 'packages/server/test/scheduler/array-jobs.test.ts' },
  'parameters.columnIndex': { applied: 'packages/server/test/bash-corpus/corpus.test.ts' },
  project: { applied: 'packages/server/test/jobs/submit.test.ts' },
  workflow: { applied: 'packages/server/test/jobs/submit.test.ts' },
  name: { applied: 'packages/server/test/jobs/submit.test.ts' },
  resumable: { applied: 'packages/server/test/jobs/ownership.test.ts' },
  saveProcessLogs: { noted: false },
  executionPlatform: { applied: 'packages/server/test/slurm/slurm-jobs.test.ts' },
  hpc: { applied: 'packages/server/test/hpc-clusters/job-submit.test.ts' },
  storageSizeInGb: { applied: 'packages/server/test/scheduler/server.test.ts' },
  execution: { applied: 'packages/server/test/jobs/submit.test.ts' },
  'execution.computeCostLimit': { applied: 'packages/server/test/scheduler/server.test.ts' },
  'execution.optim': { carriesNoChoice: 'the public client always sends the literal "test" (wire-api §2.2)' },
  instanceType: { applied: 'packages/server/test/costs/job-costs.test.ts' },
  usesFusionFileSystem: { noted: true },
  accelerateSavingResults: { noted: true },
  parametersFile: { applied: 'packages/server/test/engines/nextflow.test.ts' },
  nextflowVersion: { applied: 'packages/server/test/engines/nextflow-home.test.ts' },
  masterInstance: { applied: 'packages/server/test/costs/job-costs.test.ts' },
  'masterInstance.requestedInstance': { applied: 'packages/server/test/costs/job-costs.test.ts' },
  'masterInstance.requestedInstance.type': { applied: 'packages/server/test/costs/job-costs.test.ts' },
  batch: { applied: 'packages/server/test/jobs/submit.test.ts' },
  'batch.enabled': {
    carriesNoChoice:
      'the public client derives it from the platform and --job-queue (wire-api §2.2); the queue it names (batch.jobQueue) places the job',
  },
  'batch.jobQueue': { applied: 'packages/server/test/jobs/submit.test.ts' },
  'batch.dockerLogin': { applied: 'packages/server/test/engines/registry-login.test.ts' },
  azureBatch: { noted: { vmType: 'Standard_D4as_v4', spot: false, diskSizeInGb: 100 } },
  command: { applied: 'packages/server/test/bash-corpus/corpus.test.ts' },
  customScriptFile: { applied: 'packages/server/test/scheduler/array-jobs.test.ts' },
  'customScriptFile.dataItem': { applied: 'packages/server/test/scheduler/array-jobs.test.ts' },
  'customScriptFile.dataItem.kind': { applied: 'packages/server/test/scheduler/array-jobs.test.ts' },
  'customScriptFile.dataItem.item': { applied: 'packages/server/test/scheduler/array-jobs.test.ts' },
  arrayFile: { applied: 'packages/server/test/scheduler/array-jobs.test.ts' },
  'arrayFile.dataItem': { applied: 'packages/server/test/scheduler/array-jobs.test.ts' },
  'arrayFile.dataItem.kind': { applied: 'packages/server/test/scheduler/array-jobs.test.ts' },
  'arrayFile.dataItem.item': { applied: 'packages/server/test/scheduler/array-jobs.test.ts' },
  'arrayFile.separator': { applied: 'packages/server/test/bash-corpus/corpus.test.ts' },
  resourceRequirements: { applied: 'packages/server/test/jobs/admission.test.ts' },
  'resourceRequirements.cpu': { applied: 'packages/server/test/jobs/admission.test.ts' },
  'resourceRequirements.ram': { applied: 'packages/server/test/jobs/admission.test.ts' },
  cromwellCloudResources: { applied: 'packages/server/test/cromwell/submission.test.ts' },
  revision: { applied: 'packages/server/test/jobs/submit.test.ts' },
  'revision.revisionType': { applied: 'packages/server/test/jobs/submit.test.ts' },
  'revision.commit': { applied: 'packages/server/test/jobs/submit.test.ts' },
  'revision.tag': { applied: 'packages/server/test/jobs/submit.test.ts' },
  'revision.branch': { applied: 'packages/server/test/jobs/submit.test.ts' },
  'revision.digest': { noted: 'sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' },
  profile: { applied: 'packages/server/test/engines/nextflow.test.ts' },
  resumeWorkDir: { applied: 'packages/server/test/jobs/submit.test.ts' },
};

/** The dotted paths of every field of a TypeBox object schema, nested objects (in arrays, unions and intersections too) included. */
function fieldsOf(schema: any, prefix = ''): string[] {
  const out: string[] = [];
  const objects = (s: any): any[] => {
    if (!s || typeof s !== 'object') return [];
    if (s.type === 'object' && s.properties) return [s];
    if (s.type === 'array') return objects(s.items);
    return [...(s.anyOf ?? []), ...(s.allOf ?? [])].flatMap(objects);
  };
  for (const object of objects(schema)) {
    for (const [key, value] of Object.entries(object.properties)) {
      const name = prefix ? `${prefix}.${key}` : key;
      out.push(name, ...fieldsOf(value, name));
    }
  }
  return [...new Set(out)];
}

/** Sets a dotted path in a body. */
function withField(body: Record<string, any>, dotted: string, value: unknown): Record<string, any> {
  const parts = dotted.split('.');
  let at = body;
  for (const part of parts.slice(0, -1)) at = at[part] ??= {};
  at[parts.at(-1)!] = value;
  return body;
}

describe('every option of a job submission has its effect, or the job says it has none', { timeout: 300_000 }, () => {
  let w: BashJobServer;
  before(async () => {
    w = await startBashJobServer();
  });
  after(() => w.close());

  it('each field of the submission body is applied, noted, or carries no choice', () => {
    const fields = fieldsOf(JobSubmitBody);
    assert.ok(fields.length > 40, `${fields.length} fields found`);
    assert.deepEqual(
      fields.filter((f) => !(f in FIELDS)),
      [],
      'fields of the contract neither applied nor noted: apply them, or note them in scheduler/job-options.ts',
    );
    assert.deepEqual(
      Object.keys(FIELDS).filter((f) => !fields.includes(f)),
      [],
      'fields listed here that the contract no longer has',
    );
    for (const [field, fate] of Object.entries(FIELDS)) {
      if (!('applied' in fate)) continue;
      const file = path.join(ROOT, fate.applied);
      assert.ok(existsSync(file), `${field}: ${fate.applied} does not exist`);
      assert.ok(readFileSync(file, 'utf8').includes(field.split('.').at(-1)!), `${field}: ${fate.applied} does not name it`);
    }
    // The options the server notes are exactly those listed as noted.
    assert.deepEqual(
      Object.entries(FIELDS)
        .filter(([, fate]) => 'noted' in fate)
        .map(([field]) => field)
        .sort(),
      [...OPTIONS_WITHOUT_EFFECT].sort(),
    );
  });

  it('a job that sets each option without effect says so in its log, once each; one that sets none says nothing of them', async () => {
    let body: Record<string, any> = {};
    for (const [field, fate] of Object.entries(FIELDS)) if ('noted' in fate) body = withField(body, field, fate.noted);
    const noted = await w.submit('echo ran', body);
    const job = await w.ended(noted);
    assert.equal(job.status, 'completed', job.statusMessage ?? '');
    const log = w.logOf(noted);
    for (const field of OPTIONS_WITHOUT_EFFECT) {
      const lines = log.split('\n').filter((l) => l.startsWith(`Runyard: ${field} `));
      assert.equal(lines.length, 1, `${field} in the log:\n${log}`);
      assert.match(lines[0]!, /has no effect/);
    }
    const plain = await w.submit('echo ran', { saveProcessLogs: true, usesFusionFileSystem: false, accelerateSavingResults: false });
    await w.ended(plain);
    assert.doesNotMatch(w.logOf(plain), /has no effect/);
  });
});
