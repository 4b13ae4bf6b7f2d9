import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunyardValueError } from '../../src/errors.js';
import {
  arrayFileColumnParameter,
  buildDataItemParameter,
  buildGlobPatternParameter,
  buildTextParameter,
  classifyParameterValue,
  defaultPrefix,
  parseParameter,
} from '../../src/jobs/parameters.js';

const valueError = (message: string) => (err: unknown) => err instanceof RunyardValueError && err.message === message;

describe('-p / --parameter', () => {
  it('splits name=value at the first =, so the value may contain =', () => {
    assert.deepEqual(parseParameter('reads=s3://b/k?x=1', 'nextflow'), { prefix: '--', name: 'reads', value: 's3://b/k?x=1' });
    assert.deepEqual(parseParameter('empty=', 'nextflow'), { prefix: '--', name: 'empty', value: '' });
  });

  it('takes the prefix from the form given, else the workflow type default', () => {
    assert.deepEqual(parseParameter('--x=v', 'docker'), { prefix: '--', name: 'x', value: 'v' });
    assert.deepEqual(parseParameter('-x=v', 'docker'), { prefix: '-', name: 'x', value: 'v' });
    assert.deepEqual(parseParameter('x=v', 'docker'), { prefix: '', name: 'x', value: 'v' });
    assert.deepEqual(parseParameter('x=v', 'nextflow'), { prefix: '--', name: 'x', value: 'v' });
    assert.deepEqual(parseParameter('x=v', 'wdl'), { prefix: '', name: 'x', value: 'v' });
    assert.deepEqual(parseParameter('-x=v', 'nextflow'), { prefix: '-', name: 'x', value: 'v' });
    assert.equal(defaultPrefix('nextflow'), '--');
    assert.equal(defaultPrefix('wdl'), '');
    assert.equal(defaultPrefix('docker'), '');
  });

  it('rejects a missing = and a missing name', () => {
    assert.throws(
      () => parseParameter('reads', 'nextflow'),
      valueError("Please, specify -p / --parameter using a single '=' as spacer. E.g: input=value. Got: 'reads'"),
    );
    assert.throws(
      () => parseParameter('--=v', 'nextflow'),
      valueError("The -p / --parameter value '--=v' has no name before the '='. E.g: input=value"),
    );
  });

  it('builds the parameter objects of the wire reference', () => {
    assert.deepEqual(buildTextParameter('--', 'reads', 's3://x'), {
      prefix: '--',
      name: 'reads',
      parameterKind: 'textValue',
      textValue: 's3://x',
    });
    assert.deepEqual(buildDataItemParameter('-', 'in', 'F1'), {
      prefix: '-',
      name: 'in',
      parameterKind: 'dataItem',
      dataItem: { kind: 'File', item: 'F1' },
    });
    assert.deepEqual(buildGlobPatternParameter('', 'in', '*.csv', 'D1'), {
      prefix: '',
      name: 'in',
      parameterKind: 'globPattern',
      globPattern: '*.csv',
      folder: 'D1',
    });
  });
});

describe('classification of container-job values', () => {
  it('glob patterns in the last segment of a File Explorer path', () => {
    assert.deepEqual(classifyParameterValue('Data/dir/*.csv'), { kind: 'globPattern', folderPath: 'Data/dir', pattern: '*.csv' });
    assert.deepEqual(classifyParameterValue('Data/sample_?.txt'), { kind: 'globPattern', folderPath: 'Data', pattern: 'sample_?.txt' });
    assert.deepEqual(classifyParameterValue('Data/d/s[12].bam'), { kind: 'globPattern', folderPath: 'Data/d', pattern: 's[12].bam' });
    assert.deepEqual(classifyParameterValue('My Project/Data/reads/*.fq.gz'), {
      kind: 'globPattern',
      folderPath: 'Data/reads',
      pattern: '*.fq.gz',
      projectName: 'My Project',
    });
  });

  it('File Explorer files: Data/ paths even without an extension, other roots, and a named project', () => {
    assert.deepEqual(classifyParameterValue('Data/dir/file.csv'), { kind: 'dataItem', path: 'Data/dir/file.csv' });
    assert.deepEqual(classifyParameterValue('Data/dir/README'), { kind: 'dataItem', path: 'Data/dir/README' });
    assert.deepEqual(classifyParameterValue('/Data/file.csv'), { kind: 'dataItem', path: 'Data/file.csv' });
    assert.deepEqual(classifyParameterValue('Analyses Results/run1/out.vcf'), { kind: 'dataItem', path: 'Analyses Results/run1/out.vcf' });
    assert.deepEqual(classifyParameterValue('Cohorts/c1.json'), { kind: 'dataItem', path: 'Cohorts/c1.json' });
    assert.deepEqual(classifyParameterValue('other-project/Data/dir/file.csv'), {
      kind: 'dataItem',
      path: 'Data/dir/file.csv',
      projectName: 'other-project',
    });
  });

  it('text: storage URLs, plain words, paths outside the File Explorer, project paths without an extension', () => {
    for (const value of [
      's3://bucket/Data/file.csv',
      's3://bucket/*.csv',
      'az://acct.blob.core.windows.net/c/Data/x.txt',
      'hello',
      '42',
      'file.txt',
      '*.txt',
      'results/out.txt',
      'Data',
      'other-project/Data/dir/noext',
      '',
    ]) {
      assert.deepEqual(classifyParameterValue(value), { kind: 'textValue' }, value);
    }
  });

  it('rejects a folder path and a pattern in a folder segment', () => {
    assert.throws(
      () => classifyParameterValue('Data/dir/'),
      valueError("'Data/dir/' names a folder; a parameter can name a file or a glob pattern such as 'Data/dir/*'"),
    );
    assert.throws(
      () => classifyParameterValue('Data/*/file.csv'),
      valueError("Glob patterns are only allowed in the last segment of a path: 'Data/*/file.csv'"),
    );
  });
});

describe('-a / --array-parameter', () => {
  const headers = ['id', 'sample', 'fastq'];

  it('gives the column index in the header and the prefix as written', () => {
    assert.deepEqual(arrayFileColumnParameter('--reads=fastq', headers), {
      parameter: { prefix: '--', name: 'reads', parameterKind: 'arrayFileColumn', columnName: 'fastq', columnIndex: 2 },
      columnFound: true,
    });
    assert.deepEqual(arrayFileColumnParameter('-s=sample', headers).parameter.prefix, '-');
    assert.deepEqual(arrayFileColumnParameter('s=id', headers).parameter, {
      prefix: '',
      name: 's',
      parameterKind: 'arrayFileColumn',
      columnName: 'id',
      columnIndex: 0,
    });
  });

  it('uses index 0 and says so when the column is missing', () => {
    assert.deepEqual(arrayFileColumnParameter('--x=nope', headers), {
      parameter: { prefix: '--', name: 'x', parameterKind: 'arrayFileColumn', columnName: 'nope', columnIndex: 0 },
      columnFound: false,
    });
  });

  it('rejects a missing =', () => {
    assert.throws(
      () => arrayFileColumnParameter('--reads', headers),
      valueError("Please, specify -a / --array-parameter using a single '=' as spacer. E.g: input=value. Got: '--reads'"),
    );
  });
});
