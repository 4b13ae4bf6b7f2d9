// `parametersFile` of a job request (wire reference §2.2): a JSON or YAML file of workflow parameters,
// given as an s3:// URL, an az:// blob URL or a File Explorer path.
import { RunyardValueError } from '../errors.js';
import { parseS3FileUrl } from '../storage/storage-url.js';
import { FILE_EXPLORER_ROOTS } from './parameters.js';

export type ParametersFilePayload =
  | { dataItemEmbedded: { data: { name: string; s3BucketName: string; s3ObjectKey: string }; type: 'S3File' } }
  | {
      dataItemEmbedded: {
        data: { name: string; blobStorageAccountName: string; blobContainerName: string; blobName: string };
        type: 'AzureBlobFile';
      };
    }
  | { dataItem: { kind: 'File'; item: string } };

/** Finds the id of the File Explorer file at `path` (`Data/…`, `Analyses Results/…`, `Cohorts/…`). */
export type FileExplorerIdResolver = (path: string) => Promise<string>;

const PARAMETERS_FILE_EXTENSIONS = ['.json', '.yaml', '.yml'];
const AZURE_BLOB_HOST = '.blob.core.windows.net';
/** The `_<uuid>` the platform appends to uploaded blob names. */
const UUID_SUFFIX = /_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkExtension(fileName: string, path: string): void {
  if (!PARAMETERS_FILE_EXTENSIONS.some((ext) => fileName.toLowerCase().endsWith(ext))) {
    throw new RunyardValueError(`The parameters file must be a .json, .yaml or .yml file: '${path}'`);
  }
}

function azureBlobPayload(url: string): ParametersFilePayload {
  if (url.includes('?')) throw new RunyardValueError(`The az:// URL of a parameters file must not have a query string: '${url}'`);
  const [host, container, ...blobParts] = url.slice('az://'.length).split('/');
  const blobName = blobParts.join('/');
  if (!host.endsWith(AZURE_BLOB_HOST) || host.length === AZURE_BLOB_HOST.length || !container || !blobName || blobName.endsWith('/')) {
    throw new RunyardValueError(`Invalid Azure blob URL '${url}': use az://<account>.blob.core.windows.net/<container>/<blob>`);
  }
  const name = blobParts[blobParts.length - 1].replace(UUID_SUFFIX, '');
  checkExtension(name, url);
  return {
    dataItemEmbedded: {
      data: { name, blobStorageAccountName: host.slice(0, -AZURE_BLOB_HOST.length), blobContainerName: container, blobName },
      type: 'AzureBlobFile',
    },
  };
}

/**
 * The `parametersFile` value for a path: `s3://bucket/key` and `az://<account>.blob.core.windows.net/<container>/<blob>`
 * are embedded; a File Explorer path is looked up with `resolveFileExplorerId`. The file must end in .json, .yaml or .yml.
 */
export async function parametersFilePayload(path: string, resolveFileExplorerId?: FileExplorerIdResolver): Promise<ParametersFilePayload> {
  if (path.startsWith('s3://')) {
    const { data } = parseS3FileUrl(path).dataItem;
    checkExtension(data.name, path);
    return { dataItemEmbedded: { data, type: 'S3File' } };
  }
  if (path.startsWith('az://')) return azureBlobPayload(path);
  if (FILE_EXPLORER_ROOTS.some((root) => path.startsWith(`${root}/`))) {
    checkExtension(path, path);
    if (!resolveFileExplorerId)
      throw new RunyardValueError(`The parameters file '${path}' is a File Explorer path; a project is needed to find it.`);
    return { dataItem: { kind: 'File', item: await resolveFileExplorerId(path) } };
  }
  throw new RunyardValueError(
    `The parameters file must be an s3:// URL, an az:// URL or a File Explorer path starting with ${FILE_EXPLORER_ROOTS.map((r) => `${r}/`).join(', ')}: '${path}'`,
  );
}
