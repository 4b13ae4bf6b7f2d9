import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunyardValueError } from '../../src/errors.js';
import { convertNextflowToJson, type JobBodyInput } from '../../src/jobs/job-body.js';
import { parseJobConfig } from '../../src/jobs/job-config.js';
import { arrayFileColumnParameter, buildTextParameter, defaultPrefix } from '../../src/jobs/parameters.js';

const valueError = (message: string) => (err: unknown) => err instanceof RunyardValueError && err.message === message;
const CLI_HPC_ID = '660fae20f93358ad61e0104b';
const reads = buildTextParameter('--', 'reads', 's3://bucket/reads');
const base = { projectId: 'P', workflowId: 'WF' };

describe('convert_nextflow_to_json: the reference fixture', () => {
  it('reproduces tests/test_data/convert_nextflow_to_json_params.json byte for byte (rnatoy.config, resumable, batch=false, cost_limit=-1)', () => {
    const rnatoy = `params {
    reads   = s3://lifebit-featured-datasets/pipelines/rnatoy-data
    genome  = s3://lifebit-featured-datasets/pipelines/rnatoy-data/ggal_1_48850000_49020000.Ggal71.500bpflank.fa
    annot   = s3://lifebit-featured-datasets/pipelines/rnatoy-data/ggal_1_48850000_49020000.bed.gff
}
`;
    const { params } = parseJobConfig(rnatoy, { fileName: 'cloudos_cli/examples/rnatoy.config', workflowType: 'nextflow' });
    const body = convertNextflowToJson({
      projectId: '6054754029b82f0112762b9c',
      workflowId: '60b0ca54303ee601a69b42d1',
      workflowType: 'nextflow',
      parameters: params.map((p) => buildTextParameter(defaultPrefix('nextflow'), p.name, p.value)),
      exampleParameters: [],
      gitCommit: null,
      gitTag: null,
      jobName: 'new_job',
      resumable: true,
      saveLogs: true,
      batch: false,
      jobQueueId: null,
      nextflowProfile: null,
      nextflowVersion: '22.10.8',
      instanceType: 'c5.xlarge',
      instanceDisk: 500,
      executionPlatform: 'aws',
      hpcId: null,
      cromwellId: null,
      costLimit: -1,
      useMountpoints: false,
      dockerLogin: false,
    });
    const expected =
      '{"parameters":[' +
      '{"prefix":"--","name":"reads","parameterKind":"textValue","textValue":"s3://lifebit-featured-datasets/pipelines/rnatoy-data"},' +
      '{"prefix":"--","name":"genome","parameterKind":"textValue","textValue":"s3://lifebit-featured-datasets/pipelines/rnatoy-data/ggal_1_48850000_49020000.Ggal71.500bpflank.fa"},' +
      '{"prefix":"--","name":"annot","parameterKind":"textValue","textValue":"s3://lifebit-featured-datasets/pipelines/rnatoy-data/ggal_1_48850000_49020000.bed.gff"}],' +
      '"project":"6054754029b82f0112762b9c","workflow":"60b0ca54303ee601a69b42d1","name":"new_job","nextflowVersion":"22.10.8","resumable":true,' +
      '"usesFusionFileSystem":false,"accelerateSavingResults":false,"saveProcessLogs":true,"executionPlatform":"aws","hpc":null,"storageSizeInGb":500,' +
      '"execution":{"computeCostLimit":-1,"optim":"test"},"instanceType":"c5.xlarge","masterInstance":{"requestedInstance":{"type":"c5.xlarge"}},' +
      '"batch":{"enabled":false}}';
    assert.equal(JSON.stringify(body), expected);
    assert.deepEqual(Object.keys(body).sort(), Object.keys(JSON.parse(expected)).sort());
  });
});

describe('convert_nextflow_to_json: worked skeletons', () => {
  const skeleton1 = {
    parameters: [{ prefix: '--', name: 'reads', parameterKind: 'textValue', textValue: 's3://bucket/reads' }],
    project: 'P',
    workflow: 'WF',
    name: 'new_job',
    resumable: false,
    saveProcessLogs: true,
    executionPlatform: 'aws',
    hpc: CLI_HPC_ID,
    storageSizeInGb: 500,
    execution: { computeCostLimit: 30.0, optim: 'test' },
    instanceType: 'c5.xlarge',
    usesFusionFileSystem: false,
    accelerateSavingResults: false,
    nextflowVersion: '24.04.4',
    masterInstance: { requestedInstance: { type: 'c5.xlarge' } },
    batch: { dockerLogin: false, enabled: true, jobQueue: 'Q' },
  };

  it('1. Nextflow on AWS, user workflow, CLI defaults with one -p reads=...', () => {
    assert.deepEqual(convertNextflowToJson({ ...base, parameters: [reads], hpcId: CLI_HPC_ID, jobQueueId: 'Q' }), skeleton1);
  });

  it('2. platform module on AWS: module version, no queue', () => {
    const body = convertNextflowToJson({
      ...base,
      parameters: [reads],
      hpcId: CLI_HPC_ID,
      jobQueueId: 'Q',
      isModule: true,
      dockerLogin: true,
    });
    assert.deepEqual(body, { ...skeleton1, nextflowVersion: '22.10.8', batch: { enabled: true } });
  });

  it('3. Azure: azure instance type and version, batch disabled, azureBatch', () => {
    const body = convertNextflowToJson({
      ...base,
      parameters: [reads],
      hpcId: CLI_HPC_ID,
      executionPlatform: 'azure',
      useMountpoints: true,
    });
    assert.deepEqual(body, {
      ...skeleton1,
      executionPlatform: 'azure',
      instanceType: 'Standard_D4as_v4',
      masterInstance: { requestedInstance: { type: 'Standard_D4as_v4' } },
      batch: { enabled: false },
      azureBatch: { vmType: 'Standard_D4as_v4', spot: false, diskSizeInGb: 100 },
      nextflowVersion: '22.11.1-edge',
    });
    const custom = convertNextflowToJson({
      ...base,
      parameters: [reads],
      executionPlatform: 'azure',
      azureWorkerInstanceType: 'Standard_E8as_v4',
      azureWorkerInstanceSpot: true,
      azureWorkerInstanceDisk: 200,
    });
    assert.deepEqual(custom.azureBatch, { vmType: 'Standard_E8as_v4', spot: true, diskSizeInGb: 200 });
    assert.equal(
      'azureBatch' in convertNextflowToJson({ ...base, parameters: [reads], executionPlatform: 'azure', isModule: true }),
      false,
    );
  });

  it('4. HPC: no masterInstance, no batch, logs not saved, null instance type', () => {
    const body = convertNextflowToJson({
      ...base,
      parameters: [reads],
      executionPlatform: 'hpc',
      hpcId: 'H1',
      jobQueueId: 'Q',
      saveLogs: true,
    });
    const rest = Object.fromEntries(Object.entries(skeleton1).filter(([k]) => k !== 'masterInstance' && k !== 'batch'));
    assert.deepEqual(body, {
      ...rest,
      executionPlatform: 'hpc',
      hpc: 'H1',
      instanceType: null,
      saveProcessLogs: false,
      nextflowVersion: '22.10.8',
    });
  });

  it('5. WDL (Cromwell): empty prefix, resumable forced, cromwellCloudResources, cromwell queue', () => {
    const body = convertNextflowToJson({
      ...base,
      workflowType: 'wdl',
      parameters: [buildTextParameter(defaultPrefix('wdl'), 'wf.reads', '"s3://bucket/reads"')],
      resumable: false,
      cromwellId: 'C1',
      jobQueueId: 'CQ',
      nextflowVersion: '22.10.8',
    });
    assert.deepEqual(body, {
      ...skeleton1,
      parameters: [{ prefix: '', name: 'wf.reads', parameterKind: 'textValue', textValue: '"s3://bucket/reads"' }],
      hpc: null,
      resumable: true,
      nextflowVersion: '22.10.8',
      batch: { dockerLogin: false, enabled: true, jobQueue: 'CQ' },
      cromwellCloudResources: 'C1',
    });
  });

  it('6. bash job: no nextflowVersion, batch disabled without a queue, command and resources', () => {
    const body = convertNextflowToJson({ ...base, workflowType: 'docker', command: 'echo hi', resumable: true });
    assert.equal(
      JSON.stringify(body),
      '{"parameters":[],"project":"P","workflow":"WF","name":"new_job","resumable":false,"usesFusionFileSystem":false,"accelerateSavingResults":false,' +
        '"saveProcessLogs":true,"executionPlatform":"aws","hpc":null,"storageSizeInGb":500,"execution":{"computeCostLimit":30,"optim":"test"},' +
        '"instanceType":"c5.xlarge","masterInstance":{"requestedInstance":{"type":"c5.xlarge"}},"batch":{"enabled":false},"command":"echo hi",' +
        '"resourceRequirements":{"cpu":1,"ram":4}}',
    );
    const queued = convertNextflowToJson({
      ...base,
      workflowType: 'docker',
      command: 'echo hi',
      jobQueueId: 'Q',
      dockerLogin: true,
      cpus: 4,
      memory: 16,
    });
    assert.deepEqual(queued.batch, { dockerLogin: true, enabled: true, jobQueue: 'Q' });
    assert.deepEqual(queued.resourceRequirements, { cpu: 4, ram: 16 });
  });

  it('7. bash array job: arrayFile, customScriptFile and arrayFileColumn parameters', () => {
    const column = arrayFileColumnParameter('--reads=fastq', ['id', 'fastq']).parameter;
    const text = convertNextflowToJson({
      ...base,
      workflowType: 'docker',
      command: 'echo $reads',
      parameters: [column],
      arrayFile: { fileId: 'A1', separator: ',' },
    });
    assert.equal(text.command, 'echo $reads');
    assert.deepEqual(text.arrayFile, { dataItem: { kind: 'File', item: 'A1' }, separator: ',' });
    assert.equal('customScriptFile' in text, false);
    assert.deepEqual(text.parameters, [
      { prefix: '--', name: 'reads', parameterKind: 'arrayFileColumn', columnName: 'fastq', columnIndex: 1 },
    ]);

    const script = convertNextflowToJson({
      ...base,
      workflowType: 'docker',
      command: 'run.sh',
      customScriptFileId: 'S1',
      parameters: [column],
      arrayFile: { fileId: 'A1', separator: 'tab' },
    });
    assert.deepEqual(Object.fromEntries(['command', 'customScriptFile', 'arrayFile'].map((k) => [k, script[k]])), {
      command: 'run.sh',
      customScriptFile: { dataItem: { kind: 'File', item: 'S1' } },
      arrayFile: { dataItem: { kind: 'File', item: 'A1' }, separator: 'tab' },
    });
  });
});

describe('convert_nextflow_to_json: conditional keys', () => {
  it('revision from exactly one of tag, commit and branch, with the other two null', () => {
    const rev = (input: Partial<JobBodyInput>) => convertNextflowToJson({ ...base, parameters: [reads], ...input }).revision;
    assert.deepEqual(rev({ gitTag: 'v1' }), { revisionType: 'tag', tag: 'v1', commit: null, branch: null });
    assert.deepEqual(rev({ gitCommit: 'abc123' }), { revisionType: 'commit', tag: null, commit: 'abc123', branch: null });
    assert.deepEqual(rev({ gitBranch: 'dev' }), { revisionType: 'branch', tag: null, commit: null, branch: 'dev' });
    assert.equal(rev({}), undefined);
    assert.equal(rev({ gitTag: '', gitCommit: null }), undefined);
  });

  it('more than one of tag, commit and branch is an error', () => {
    const message = 'Please, specify none or only one of --git-tag, --git-branch or --git-commit options.';
    assert.throws(() => convertNextflowToJson({ ...base, parameters: [reads], gitTag: 'v1', gitBranch: 'dev' }), valueError(message));
    assert.throws(
      () => convertNextflowToJson({ ...base, parameters: [reads], gitCommit: 'abc', gitTag: 'v1', gitBranch: 'dev' }),
      valueError(message),
    );
  });

  it('profile, parametersFile, instance type, disk, cost limit, fusion and accelerated saving', () => {
    const parametersFile = { dataItem: { kind: 'File' as const, item: 'F1' } };
    const body = convertNextflowToJson({
      ...base,
      nextflowProfile: 'test,docker',
      parametersFile,
      instanceType: 'm5.2xlarge',
      instanceDisk: 200,
      costLimit: 12.5,
      useMountpoints: true,
      accelerateSavingResults: true,
    });
    assert.equal(body.profile, 'test,docker');
    assert.deepEqual(body.parametersFile, parametersFile);
    assert.deepEqual(body.parameters, []);
    assert.equal(body.instanceType, 'm5.2xlarge');
    assert.deepEqual(body.masterInstance, { requestedInstance: { type: 'm5.2xlarge' } });
    assert.equal(body.storageSizeInGb, 200);
    assert.deepEqual(body.execution, { computeCostLimit: 12.5, optim: 'test' });
    assert.equal(body.usesFusionFileSystem, true);
    assert.equal(body.accelerateSavingResults, true);
    assert.equal('profile' in convertNextflowToJson(base), false);
    assert.equal('parametersFile' in convertNextflowToJson(base), false);
  });

  it('fusion only on aws; batch may be set explicitly; example parameters are appended unchanged', () => {
    assert.equal(convertNextflowToJson({ ...base, executionPlatform: 'hpc', useMountpoints: true }).usesFusionFileSystem, false);
    assert.deepEqual(convertNextflowToJson({ ...base, batch: false }).batch, { enabled: false });
    const example = { prefix: '--', name: 'genome', parameterKind: 'textValue', textValue: 'GRCh38', extra: 1 };
    assert.deepEqual(convertNextflowToJson({ ...base, parameters: [reads], exampleParameters: [example] }).parameters, [reads, example]);
  });

  it('resumable: as given for nextflow, forced true for wdl and false for docker', () => {
    assert.equal(convertNextflowToJson({ ...base, resumable: true }).resumable, true);
    assert.equal(convertNextflowToJson(base).resumable, false);
    assert.equal(convertNextflowToJson({ ...base, workflowType: 'wdl', parameters: [reads] }).resumable, true);
    assert.equal(convertNextflowToJson({ ...base, workflowType: 'docker', command: 'x', resumable: true }).resumable, false);
  });

  it('does not change the parameter list it is given', () => {
    const parameters = [reads];
    convertNextflowToJson({ ...base, parameters, exampleParameters: [{ name: 'x' }] });
    assert.deepEqual(parameters, [reads]);
  });
});

describe('convert_nextflow_to_json: errors', () => {
  it('wdl without parameters, and wdl on hpc', () => {
    assert.throws(
      () => convertNextflowToJson({ ...base, workflowType: 'wdl' }),
      valueError('No --job-config or --parameter were provided. At least one of these are required for WDL workflows.'),
    );
    assert.throws(
      () => convertNextflowToJson({ ...base, workflowType: 'wdl', parameters: [reads], executionPlatform: 'hpc' }),
      valueError('WDL workflows cannot run on the hpc execution platform.'),
    );
  });

  it('bash jobs: a command is needed; array files need a column parameter and a known separator', () => {
    assert.throws(
      () => convertNextflowToJson({ ...base, workflowType: 'docker' }),
      valueError('A bash job needs a command (or the name of its custom script).'),
    );
    assert.throws(
      () => convertNextflowToJson({ ...base, workflowType: 'docker', command: 'x', arrayFile: { fileId: 'A', separator: ',' } }),
      valueError('At least one array file column must be added to the parameters'),
    );
    const column = arrayFileColumnParameter('c=id', ['id']).parameter;
    assert.throws(
      () =>
        convertNextflowToJson({
          ...base,
          workflowType: 'docker',
          command: 'x',
          parameters: [column],
          arrayFile: { fileId: 'A', separator: ':' as ',' },
        }),
      valueError("Unknown array-file separator ':'; use one of ',', ';', ' ', 'tab', '|'."),
    );
    assert.throws(
      () => convertNextflowToJson({ ...base, workflowType: 'docker', command: 'x', cpus: 0 }),
      valueError('cpus must be a positive integer, not 0.'),
    );
    assert.throws(
      () => convertNextflowToJson({ ...base, workflowType: 'docker', command: 'x', memory: 1.5 }),
      valueError('memory must be a positive integer, not 1.5.'),
    );
  });

  it('ids, disk and cost limit', () => {
    assert.throws(() => convertNextflowToJson({ projectId: '', workflowId: 'WF' }), valueError('A job needs a project id.'));
    assert.throws(() => convertNextflowToJson({ projectId: 'P', workflowId: '' }), valueError('A job needs a workflow id.'));
    assert.throws(
      () => convertNextflowToJson({ ...base, instanceDisk: -5 }),
      valueError('instance_disk must be a positive integer, not -5.'),
    );
    assert.throws(() => convertNextflowToJson({ ...base, costLimit: Number.NaN }), valueError('cost_limit must be a number, not NaN.'));
  });
});
