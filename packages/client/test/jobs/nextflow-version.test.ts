import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunyardValueError } from '../../src/errors.js';
import { defaultNextflowVersion, resolveNextflowVersion } from '../../src/jobs/nextflow-version.js';
import type { ExecutionPlatform } from '../../src/jobs/job-types.js';

const valueError = (message: string) => (err: unknown) => err instanceof RunyardValueError && err.message === message;

describe('--nextflow-version resolution', () => {
  it('defaults per platform and module', () => {
    assert.equal(defaultNextflowVersion('azure', false), '22.11.1-edge');
    assert.equal(defaultNextflowVersion('azure', true), '22.11.1-edge');
    assert.equal(defaultNextflowVersion('hpc', false), '22.10.8');
    assert.equal(defaultNextflowVersion('aws', true), '22.10.8');
    assert.equal(defaultNextflowVersion('aws', false), '24.04.4');
    assert.deepEqual(resolveNextflowVersion({ platform: 'aws' }), { version: '24.04.4', warnings: [] });
    assert.deepEqual(resolveNextflowVersion({ platform: 'aws', requested: null, isModule: true }), { version: '22.10.8', warnings: [] });
  });

  it('latest per platform', () => {
    assert.deepEqual(resolveNextflowVersion({ platform: 'aws', requested: 'latest' }), { version: '25.10.4', warnings: [] });
    assert.deepEqual(resolveNextflowVersion({ platform: 'azure', requested: 'latest' }), { version: '22.11.1-edge', warnings: [] });
    assert.deepEqual(resolveNextflowVersion({ platform: 'hpc', requested: 'latest' }), { version: '22.10.8', warnings: [] });
  });

  it('accepts every allowed aws version', () => {
    for (const v of ['22.10.8', '24.04.4', '25.04.8', '25.10.4']) {
      assert.deepEqual(resolveNextflowVersion({ platform: 'aws', requested: v }), { version: v, warnings: [] });
    }
  });

  it('forces modules to their version, with a warning', () => {
    assert.deepEqual(resolveNextflowVersion({ platform: 'aws', requested: '24.04.4', isModule: true, workflowName: 'rnatoy' }), {
      version: '22.10.8',
      warnings: ["The workflow 'rnatoy' is a platform module, which only runs with Nextflow 22.10.8; switching from 24.04.4 to 22.10.8."],
    });
    assert.deepEqual(resolveNextflowVersion({ platform: 'aws', requested: 'latest', isModule: true }), {
      version: '22.10.8',
      warnings: ['The workflow is a platform module, which only runs with Nextflow 22.10.8; switching from 25.10.4 to 22.10.8.'],
    });
    assert.equal(resolveNextflowVersion({ platform: 'azure', requested: '24.04.4', isModule: true }).version, '22.11.1-edge');
  });

  it('aws and hpc reject other versions', () => {
    assert.throws(
      () => resolveNextflowVersion({ platform: 'aws', requested: '23.01.0' }),
      valueError(
        "Unsupported Nextflow version '23.01.0' for the aws execution platform. Supported versions are: 22.10.8, 24.04.4, 25.04.8, 25.10.4.",
      ),
    );
    assert.throws(
      () => resolveNextflowVersion({ platform: 'hpc', requested: '24.04.4' }),
      valueError("Unsupported Nextflow version '24.04.4' for the hpc execution platform. Supported versions are: 22.10.8."),
    );
  });

  it('azure switches other versions to 22.11.1-edge with a warning', () => {
    assert.deepEqual(resolveNextflowVersion({ platform: 'azure', requested: '24.04.4' }), {
      version: '22.11.1-edge',
      warnings: ["Nextflow version '24.04.4' is not supported on azure, which only supports 22.11.1-edge; switching to 22.11.1-edge."],
    });
  });

  it('rejects an unknown platform', () => {
    assert.throws(
      () => resolveNextflowVersion({ platform: 'gcp' as ExecutionPlatform }),
      valueError("Unknown execution platform 'gcp'; use one of aws, azure, hpc."),
    );
  });
});
