import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunyardValueError } from '../../src/errors.js';
import { fixBooleanStrings } from '../../src/jobs/boolean-strings.js';
import { applyCloneOverrides, inferRevision, overrideNeedsResolution, overrideParameter } from '../../src/jobs/clone-overrides.js';
import { buildDataItemParameter } from '../../src/jobs/parameters.js';

const valueError = (message: string) => (err: unknown) => err instanceof RunyardValueError && err.message === message;

/** A request payload as `GET /api/v1/jobs/{id}/request-payload` returns it. */
function storedPayload(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    _id: 'J1',
    resourceId: 'R1',
    parameters: [
      { prefix: '--', name: 'reads', parameterKind: 'textValue', textValue: 's3://bucket/reads' },
      { prefix: '--', name: 'genome', parameterKind: 'dataItem', dataItem: { kind: 'File', item: 'F1' } },
      { prefix: '--', name: 'inputs', parameterKind: 'globPattern', globPattern: '*.csv', folder: 'D1' },
      { prefix: '--', name: 'col', parameterKind: 'arrayFileColumn', columnName: 'id', columnIndex: '0' },
    ],
    project: 'P',
    workflow: 'WF',
    name: 'original',
    nextflowVersion: '22.10.8',
    resumable: 'false',
    saveProcessLogs: 'true',
    executionPlatform: 'aws',
    execution: { computeCostLimit: 30, optim: 'test' },
    masterInstance: { requestedInstance: { type: 'c5.xlarge', asSpot: false } },
    batch: { enabled: true, jobQueue: 'Q0', dockerLogin: false },
    revision: { revisionType: 'tag', tag: 'v1', commit: 'abc', branch: '' },
    usesFusionFileSystem: false,
    accelerateSavingResults: false,
    ...extra,
  };
}

describe('clone and resume: applying overrides', () => {
  it('removes _id and resourceId and leaves everything else when nothing is overridden', () => {
    const original = storedPayload();
    const { payload, warnings } = applyCloneOverrides(original, { mode: 'clone' });
    const expected = storedPayload();
    delete expected._id;
    delete expected.resourceId;
    assert.deepEqual(payload, expected);
    assert.deepEqual(warnings, []);
  });

  it('applies name, cost limit, instance type, version, profile, logs, fusion, saving, resumable and project', () => {
    const { payload, warnings } = applyCloneOverrides(storedPayload(), {
      mode: 'clone',
      jobName: 'copy',
      costLimit: -1,
      instanceType: 'm5.xlarge',
      nextflowVersion: '24.04.4',
      profile: 'test',
      doNotSaveLogs: true,
      useFusion: true,
      accelerateSavingResults: true,
      resumable: true,
      projectId: 'P2',
    });
    assert.deepEqual(warnings, []);
    assert.equal(payload.name, 'copy');
    assert.deepEqual(payload.execution, { computeCostLimit: -1, optim: 'test' });
    assert.deepEqual(payload.masterInstance, { requestedInstance: { type: 'm5.xlarge', asSpot: false } });
    assert.equal(payload.nextflowVersion, '24.04.4');
    assert.equal(payload.profile, 'test');
    assert.equal(payload.saveProcessLogs, false);
    assert.equal(payload.usesFusionFileSystem, true);
    assert.equal(payload.accelerateSavingResults, true);
    assert.equal(payload.resumable, true);
    assert.equal(payload.project, 'P2');
  });

  it('creates execution and masterInstance when the stored payload lacks them', () => {
    const original = storedPayload();
    delete original.execution;
    delete original.masterInstance;
    const { payload } = applyCloneOverrides(original, { mode: 'clone', costLimit: 5, instanceType: 'c5.large' });
    assert.deepEqual(payload.execution, { computeCostLimit: 5 });
    assert.deepEqual(payload.masterInstance, { requestedInstance: { type: 'c5.large' } });
  });

  it('resume copies resumeWorkDir and ignores --resumable with a warning', () => {
    const { payload, warnings } = applyCloneOverrides(storedPayload(), { mode: 'resume', resumeWorkDir: 'W1', resumable: true });
    assert.equal(payload.resumeWorkDir, 'W1');
    assert.equal(payload.resumable, 'false');
    assert.deepEqual(warnings, ['--resumable only applies when cloning a job; it is ignored when resuming.']);
    assert.equal('resumeWorkDir' in applyCloneOverrides(storedPayload(), { mode: 'clone', resumeWorkDir: 'W1' }).payload, false);
  });

  it('nextflowVersion only when the key exists; latest is the platform latest', () => {
    assert.equal(applyCloneOverrides(storedPayload(), { mode: 'clone', nextflowVersion: 'latest' }).payload.nextflowVersion, '25.10.4');
    const bash = storedPayload({ command: 'echo hi' });
    delete bash.nextflowVersion;
    const { payload, warnings } = applyCloneOverrides(bash, { mode: 'clone', nextflowVersion: '24.04.4' });
    assert.equal('nextflowVersion' in payload, false);
    assert.deepEqual(warnings, ['This job has no Nextflow version (a bash job); --nextflow-version is ignored.']);
  });

  it('azure: version, fusion and queue overrides are ignored with warnings', () => {
    const azure = storedPayload({ executionPlatform: 'azure', nextflowVersion: '22.11.1-edge', batch: { enabled: false } });
    const { payload, warnings } = applyCloneOverrides(azure, {
      mode: 'clone',
      nextflowVersion: '24.04.4',
      useFusion: true,
      jobQueueId: 'Q9',
    });
    assert.equal(payload.nextflowVersion, '22.11.1-edge');
    assert.equal(payload.usesFusionFileSystem, false);
    assert.deepEqual(payload.batch, { enabled: false });
    assert.deepEqual(warnings, [
      'Azure only runs Nextflow 22.11.1-edge; --nextflow-version is ignored.',
      'Azure does not use the fusion file system; --accelerate-file-staging is ignored.',
      'Azure does not use job queues; --job-queue is ignored.',
    ]);
    assert.deepEqual(applyCloneOverrides(azure, { mode: 'clone', nextflowVersion: 'latest' }).warnings, []);
  });

  it('--git-branch sets a branch revision and drops tag and commit', () => {
    const { payload } = applyCloneOverrides(storedPayload(), { mode: 'clone', branch: 'dev' });
    assert.deepEqual(payload.revision, { revisionType: 'branch', branch: 'dev' });
  });

  it('bash jobs: batch is reset to disabled, then the queue is set; --resumable is ignored', () => {
    const bash = storedPayload({ command: 'echo hi' });
    assert.deepEqual(applyCloneOverrides(bash, { mode: 'clone' }).payload.batch, { enabled: false });
    const { payload, warnings } = applyCloneOverrides(bash, { mode: 'clone', jobQueueId: 'Q2', resumable: true });
    assert.deepEqual(payload.batch, { enabled: false, jobQueue: 'Q2' });
    assert.equal(payload.resumable, 'false');
    assert.deepEqual(warnings, ['Bash jobs are not resumable; --resumable is ignored.']);
  });

  it('--job-queue replaces the queue of a nextflow job', () => {
    assert.deepEqual(applyCloneOverrides(storedPayload(), { mode: 'clone', jobQueueId: 'Q2' }).payload.batch, {
      enabled: true,
      jobQueue: 'Q2',
      dockerLogin: false,
    });
  });

  it('-p overrides: known names updated, unknown ones appended, resolved parameters replace entries', () => {
    const { payload } = applyCloneOverrides(storedPayload(), {
      mode: 'clone',
      parameters: [
        'reads=s3://bucket/other',
        '--genome=az://acct.blob.core.windows.net/c/g.fa',
        '-new=1',
        'plain=a=b',
        buildDataItemParameter('--', 'inputs', 'F9'),
      ],
    });
    assert.deepEqual(payload.parameters, [
      { prefix: '--', name: 'reads', parameterKind: 'textValue', textValue: 's3://bucket/other' },
      { prefix: '--', name: 'genome', parameterKind: 'textValue', textValue: 'az://acct.blob.core.windows.net/c/g.fa' },
      { prefix: '--', name: 'inputs', parameterKind: 'dataItem', dataItem: { kind: 'File', item: 'F9' } },
      { prefix: '--', name: 'col', parameterKind: 'arrayFileColumn', columnName: 'id', columnIndex: '0' },
      { prefix: '-', name: 'new', parameterKind: 'textValue', textValue: '1' },
      { prefix: '', name: 'plain', parameterKind: 'textValue', textValue: 'a=b' },
    ]);
  });

  it('-p override without = is an error', () => {
    assert.throws(
      () => applyCloneOverrides(storedPayload(), { mode: 'clone', parameters: ['reads'] }),
      valueError("Please, specify -p / --parameter using a single '=' as spacer. E.g: input=value. Got: 'reads'"),
    );
  });

  it('does not change the stored payload, and fixBooleanStrings finishes it for sending', () => {
    const original = storedPayload();
    const before = structuredClone(original);
    const { payload } = applyCloneOverrides(original, { mode: 'clone', jobName: 'x', parameters: ['reads=y'], branch: 'b', costLimit: 1 });
    assert.deepEqual(original, before);
    const sent = fixBooleanStrings(payload);
    assert.equal(sent.resumable, false);
    assert.equal(sent.saveProcessLogs, true);
    assert.equal((sent.parameters as Array<Record<string, unknown>>)[3].columnIndex, 0);
  });
});

describe('overrideParameter', () => {
  const list = () => storedPayload().parameters as Array<Record<string, unknown>>;

  it('returns true for a known name (dashes ignored), false for an appended one', () => {
    const parameters = list();
    assert.equal(overrideParameter(parameters, '--reads', 's3://b/x'), true);
    assert.equal(parameters[0].textValue, 's3://b/x');
    assert.equal(overrideParameter(parameters, '--extra', 'v'), false);
    assert.deepEqual(parameters[4], { prefix: '--', name: 'extra', parameterKind: 'textValue', textValue: 'v' });
    assert.equal(parameters.length, 5);
  });

  it('a dataItem becomes a textValue for s3:// and az:// values and for plain text', () => {
    for (const value of ['s3://b/g.fa', 'az://a.blob.core.windows.net/c/g.fa', 'GRCh38']) {
      const parameters = list();
      assert.equal(overrideParameter(parameters, 'genome', value), true);
      assert.deepEqual(parameters[1], { prefix: '--', name: 'genome', parameterKind: 'textValue', textValue: value });
    }
  });

  it('a File Explorer path over a file, glob or column parameter must be resolved first', () => {
    const parameters = list();
    assert.equal(overrideNeedsResolution(parameters, 'genome', 'Data/g.fa'), true);
    assert.equal(overrideNeedsResolution(parameters, '--inputs', 'Data/*.tsv'), true);
    assert.equal(overrideNeedsResolution(parameters, 'col', 'sample'), true);
    assert.equal(overrideNeedsResolution(parameters, 'reads', 'Data/r.fq'), false);
    assert.equal(overrideNeedsResolution(parameters, 'genome', 's3://b/g.fa'), false);
    assert.equal(overrideNeedsResolution(parameters, 'unknown', 'Data/x.csv'), false);
    assert.throws(
      () => overrideParameter(parameters, 'genome', 'Data/g.fa'),
      valueError("Parameter 'genome' is a dataItem parameter; the new value 'Data/g.fa' must be resolved in the File Explorer first."),
    );
    assert.equal(overrideParameter(parameters, 'genome', buildDataItemParameter('', 'genome', 'F2')), true);
    assert.deepEqual(parameters[1], { prefix: '--', name: 'genome', parameterKind: 'dataItem', dataItem: { kind: 'File', item: 'F2' } });
  });
});

describe('inferRevision', () => {
  it('takes revisionType from the first non-empty of digest, tag, branch, commit', () => {
    assert.deepEqual(inferRevision({ commit: 'abc', digest: 'sha256:1', tag: '' }), {
      commit: 'abc',
      digest: 'sha256:1',
      tag: '',
      revisionType: 'digest',
    });
    assert.deepEqual(inferRevision({ commit: 'abc', branch: 'main' }), { commit: 'abc', branch: 'main', revisionType: 'branch' });
    assert.deepEqual(inferRevision({ commit: 'abc' }), { commit: 'abc', revisionType: 'commit' });
    assert.deepEqual(inferRevision({}), {});
  });
});
