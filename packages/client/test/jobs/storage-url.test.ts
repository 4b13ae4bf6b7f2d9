import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunyardValueError } from '../../src/errors.js';
import { isStorageFile, parseS3FileUrl, parseS3FolderUrl } from '../../src/storage/storage-url.js';

const valueError = (message: string) => (err: unknown) => err instanceof RunyardValueError && err.message === message;

describe('storage URLs', () => {
  it('a file has a dot in its last segment and no trailing slash', () => {
    assert.equal(isStorageFile('s3://bucket/dir/file.txt'), true);
    assert.equal(isStorageFile('s3://bucket/file.tar.gz'), true);
    assert.equal(isStorageFile('s3://bucket/dir.v1/file'), false);
    assert.equal(isStorageFile('s3://bucket/dir/file.txt/'), false);
    assert.equal(isStorageFile('s3://bucket/dir/'), false);
    assert.equal(isStorageFile('s3://my.bucket'), false);
    assert.equal(isStorageFile('Data/file.txt'), false);
  });

  it('parses a folder: name is the last prefix segment, s3Prefix the whole prefix', () => {
    assert.deepEqual(parseS3FolderUrl('s3://bucket/path/to/folder/'), {
      dataItem: { type: 'S3Folder', data: { name: 'folder', s3BucketName: 'bucket', s3Prefix: 'path/to/folder/' } },
    });
    assert.deepEqual(parseS3FolderUrl('s3://bucket/top'), {
      dataItem: { type: 'S3Folder', data: { name: 'top', s3BucketName: 'bucket', s3Prefix: 'top' } },
    });
  });

  it('rejects a folder URL not starting with s3:// or without a key', () => {
    assert.throws(() => parseS3FolderUrl('gs://bucket/x'), valueError("Invalid S3 URL 'gs://bucket/x': it must start with 's3://'."));
    assert.throws(
      () => parseS3FolderUrl('s3://bucket'),
      valueError("Invalid S3 URL 's3://bucket': it must include a key after the bucket."),
    );
    assert.throws(
      () => parseS3FolderUrl('s3://bucket/'),
      valueError("Invalid S3 URL 's3://bucket/': it must include a key after the bucket."),
    );
    assert.throws(() => parseS3FolderUrl('s3:///key'), valueError("Invalid S3 URL 's3:///key': it names no bucket."));
  });

  it('parses a file', () => {
    assert.deepEqual(parseS3FileUrl('s3://my-bucket/path/to/params.json'), {
      dataItem: { type: 'S3File', data: { name: 'params.json', s3BucketName: 'my-bucket', s3ObjectKey: 'path/to/params.json' } },
    });
  });

  it('rejects an invalid file URL', () => {
    assert.throws(
      () => parseS3FileUrl('https://bucket/x.txt'),
      valueError("Invalid S3 URL 'https://bucket/x.txt': it must start with 's3://'."),
    );
    assert.throws(() => parseS3FileUrl('s3://bucket'), valueError("Invalid S3 URL 's3://bucket': it must include a key after the bucket."));
    assert.throws(
      () => parseS3FileUrl('s3://bucket/dir/'),
      valueError("Invalid S3 file URL 's3://bucket/dir/': it ends with '/', so it names a folder."),
    );
  });
});
