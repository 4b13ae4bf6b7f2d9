import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunyardValueError } from '../../src/errors.js';
import { parametersFilePayload } from '../../src/jobs/parameters-file.js';

const valueError = (message: string) => (err: unknown) => err instanceof RunyardValueError && err.message === message;

describe('parametersFile', () => {
  it('embeds an s3:// file', async () => {
    assert.deepEqual(await parametersFilePayload('s3://my-bucket/path/to/params.json'), {
      dataItemEmbedded: { data: { name: 'params.json', s3BucketName: 'my-bucket', s3ObjectKey: 'path/to/params.json' }, type: 'S3File' },
    });
  });

  it('embeds an az:// blob, removing the trailing _<uuid> from the name only', async () => {
    const blob = 'inputs/rnatoy_params.json_137531fe-c19a-44c6-9e30-2d6dcb371072';
    assert.deepEqual(await parametersFilePayload(`az://acct.blob.core.windows.net/container/${blob}`), {
      dataItemEmbedded: {
        data: { name: 'rnatoy_params.json', blobStorageAccountName: 'acct', blobContainerName: 'container', blobName: blob },
        type: 'AzureBlobFile',
      },
    });
    const plain = await parametersFilePayload('az://acct.blob.core.windows.net/c/p.yml');
    assert.deepEqual(plain, {
      dataItemEmbedded: {
        data: { name: 'p.yml', blobStorageAccountName: 'acct', blobContainerName: 'c', blobName: 'p.yml' },
        type: 'AzureBlobFile',
      },
    });
  });

  it('rejects an az:// URL with a query string or without account, container or blob', async () => {
    await assert.rejects(
      parametersFilePayload('az://acct.blob.core.windows.net/c/p.json?sv=2020&sig=x'),
      valueError(
        "The az:// URL of a parameters file must not have a query string: 'az://acct.blob.core.windows.net/c/p.json?sv=2020&sig=x'",
      ),
    );
    for (const url of [
      'az://acct/c/p.json',
      'az://acct.blob.core.windows.net/c',
      'az://.blob.core.windows.net/c/p.json',
      'az://acct.blob.core.windows.net/c/d/',
    ]) {
      await assert.rejects(
        parametersFilePayload(url),
        valueError(`Invalid Azure blob URL '${url}': use az://<account>.blob.core.windows.net/<container>/<blob>`),
      );
    }
  });

  it('resolves a File Explorer path to a file id through the callback', async () => {
    const asked: string[] = [];
    const resolve = async (p: string) => {
      asked.push(p);
      return 'file-id-1';
    };
    assert.deepEqual(await parametersFilePayload('Data/params/p.yaml', resolve), { dataItem: { kind: 'File', item: 'file-id-1' } });
    assert.deepEqual(await parametersFilePayload('Analyses Results/r/p.json', resolve), { dataItem: { kind: 'File', item: 'file-id-1' } });
    assert.deepEqual(await parametersFilePayload('Cohorts/p.yml', resolve), { dataItem: { kind: 'File', item: 'file-id-1' } });
    assert.deepEqual(asked, ['Data/params/p.yaml', 'Analyses Results/r/p.json', 'Cohorts/p.yml']);
  });

  it('needs the resolver for a File Explorer path', async () => {
    await assert.rejects(
      parametersFilePayload('Data/p.json'),
      valueError("The parameters file 'Data/p.json' is a File Explorer path; a project is needed to find it."),
    );
  });

  it('accepts only .json, .yaml and .yml', async () => {
    for (const p of [
      's3://b/params.txt',
      'az://a.blob.core.windows.net/c/params.csv_137531fe-c19a-44c6-9e30-2d6dcb371072',
      'Data/params.config',
    ]) {
      await assert.rejects(
        parametersFilePayload(p, async () => 'x'),
        valueError(`The parameters file must be a .json, .yaml or .yml file: '${p}'`),
      );
    }
  });

  it('rejects other paths', async () => {
    await assert.rejects(
      parametersFilePayload('/home/me/params.json'),
      valueError(
        "The parameters file must be an s3:// URL, an az:// URL or a File Explorer path starting with Data/, Analyses Results/, Cohorts/: '/home/me/params.json'",
      ),
    );
    await assert.rejects(
      parametersFilePayload('s3://bucket'),
      valueError("Invalid S3 URL 's3://bucket': it must include a key after the bucket."),
    );
  });
});
