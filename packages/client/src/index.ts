// The node SDK (`@runyard/client`): everything of the browser-safe core, and RunyardClient with the node
// transport, downloads to files, streamed uploads and job-config files.
export * from './core.js';
export { RunyardClient, type ClientOptions } from './client.js';
export { Transport, type Verify, type TransportOptions } from './transport.js';
export { readJobConfigFile } from './jobs/job-config.js';
export { saveJobListToCsv } from './jobs-api/job-csv.js';
export { downloadObject, downloadFolder, pathInside, type Downloaded, type DownloadOptions } from './storage/download.js';
export { Datasets } from './datasets/datasets.js';
export { StreamUploader, type UploaderOptions } from './datasets/upload.js';
