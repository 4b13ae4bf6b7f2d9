import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from './support/browser-test.js';
import { webWorld, type WebWorld } from './support/web-world.js';

const WAIT = { timeout: 60_000 };

let w: WebWorld;
let tmp: string;
before(async () => {
  w = await webWorld();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'runyard-web-data-'));
});
after(async () => {
  await w?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** What the File Explorer holds at a path, as the SDK (the CLI's `datasets ls`) sees it. */
async function listed(folder: string) {
  const fe = await w.client.datasets(w.ws, 'demo');
  return fe.listFolderContent(folder);
}

test('the Data page uploads a file with progress, downloads it back, and makes, renames, moves and deletes', async () => {
  const { context, page, problems } = await w.signedIn();
  const bytes = randomBytes(700_000);

  await page.getByRole('link', { name: 'Data', exact: true }).click();
  // The first project opens by itself; Data is one click away (the path goes into the URL).
  await page.getByRole('link', { name: 'Data/' }).click(WAIT);
  await page.waitForURL((u) => u.searchParams.get('path') === 'Data', WAIT);

  await page.getByLabel('File to upload').setInputFiles({ name: 'reads.bin', mimeType: 'application/octet-stream', buffer: bytes });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Uploaded "reads.bin" (684 KiB) to Data.' }).waitFor(WAIT);
  await page
    .getByRole('row', { name: /reads\.bin/ })
    .getByText('684 KiB')
    .waitFor(WAIT);

  // The server has the file with its size, and its bytes (read with the SDK's download).
  const file = (await listed('Data')).files.find((f) => f.name === 'reads.bin');
  assert.ok(file, 'the upload is in Data');
  assert.equal(file.sizeInBytes, bytes.length);
  const stored = path.join(tmp, 'stored.bin');
  await w.client.downloadObject(w.ws, { bucket: String(file.s3BucketName), key: String(file.s3ObjectKey), size: bytes.length }, stored);
  assert.ok(readFileSync(stored).equals(bytes), 'the stored bytes are the uploaded ones');

  // Download from the page.
  const [download] = await Promise.all([
    page.waitForEvent('download', WAIT),
    page.getByRole('link', { name: 'Download reads.bin' }).click(),
  ]);
  const back = path.join(tmp, 'back.bin');
  await download.saveAs(back);
  assert.ok(readFileSync(back).equals(bytes), 'the page downloads the same bytes');

  // A folder: made, renamed, then the file moved into it.
  await page.getByLabel('Folder name').fill('inputs');
  await page.getByRole('button', { name: 'Create folder' }).click();
  await page.getByRole('status').filter({ hasText: 'Created the folder "inputs" in Data.' }).waitFor(WAIT);
  await page.getByRole('button', { name: 'Rename inputs' }).click();
  await page.getByLabel('New name for inputs').fill('raw');
  await page.getByRole('button', { name: 'Save name' }).click();
  await page.getByRole('link', { name: 'raw/' }).waitFor(WAIT);
  await page.getByRole('button', { name: 'Move reads.bin' }).click();
  await page.getByLabel('Move reads.bin to folder').fill('Data/raw');
  await page.getByRole('button', { name: 'Move here' }).click();
  await page.getByRole('status').filter({ hasText: 'Moved "reads.bin" to Data/raw.' }).waitFor(WAIT);
  assert.deepEqual(
    (await listed('Data/raw')).files.map((f) => f.name),
    ['reads.bin'],
  );
  assert.deepEqual(
    (await listed('Data')).files.map((f) => f.name),
    [],
  );

  // A name the folder has already: the server's 409, in its words, and nothing changes.
  await page.getByLabel('File to upload').setInputFiles({ name: 'raw', mimeType: 'text/plain', buffer: Buffer.from('x') });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: '"raw" already exists in this folder' }).waitFor(WAIT);
  assert.deepEqual(
    (await listed('Data')).files.map((f) => f.name),
    [],
  );

  // Storage: the workspace's bucket, down to the uploaded object, downloadable.
  await page.getByRole('link', { name: 'Storage', exact: true }).click();
  await page.getByRole('link', { name: `${w.ws}/` }).click(WAIT);
  await page.getByRole('link', { name: 'files/' }).click(WAIT);
  await page.getByRole('link', { name: `${String(file._id)}/` }).click(WAIT);
  const [fromStorage] = await Promise.all([
    page.waitForEvent('download', WAIT),
    page.getByRole('link', { name: 'Download reads.bin' }).click(),
  ]);
  const again = path.join(tmp, 'again.bin');
  await fromStorage.saveAs(again);
  assert.ok(readFileSync(again).equals(bytes), 'the storage view downloads the same bytes');
  // The breadcrumb goes back up.
  await page.getByRole('navigation', { name: 'Storage path' }).getByRole('link', { name: w.ws, exact: true }).click();
  await page.getByRole('link', { name: 'files/' }).waitFor(WAIT);

  // Back in the File Explorer: delete, after the confirm step.
  await page.getByRole('link', { name: 'File Explorer' }).click();
  await page.getByRole('link', { name: 'Data/' }).click(WAIT);
  await page.getByRole('button', { name: 'Delete raw' }).click();
  await page.getByRole('group', { name: 'Delete the folder "raw" and everything in it?' }).waitFor(WAIT);
  assert.ok(
    (await listed('Data')).folders.some((f) => f.name === 'raw'),
    'nothing is deleted before the confirmation',
  );
  await page.getByRole('button', { name: 'Yes, delete folder' }).click();
  await page.getByRole('status').filter({ hasText: 'Deleted the folder "raw".' }).waitFor(WAIT);
  await page.getByRole('link', { name: 'raw/' }).waitFor({ state: 'detached', ...WAIT });
  assert.deepEqual(
    (await listed('Data')).folders.map((f) => f.name),
    [],
  );

  // At phone width the page's content does not scroll sideways (tables scroll inside their frame).
  await page.setViewportSize({ width: 375, height: 800 });
  await page.getByRole('link', { name: 'Storage', exact: true }).click();
  await page.getByRole('link', { name: `${w.ws}/` }).waitFor(WAIT);
  await page.getByRole('link', { name: 'File Explorer' }).click();
  await page.getByRole('link', { name: 'Data/' }).click(WAIT);
  await page.getByLabel('File to upload').waitFor(WAIT);
  const overflow = await page.evaluate(() => {
    const main = document.querySelector('main')!;
    return main.scrollWidth - main.clientWidth;
  });
  assert.ok(overflow <= 0, `the content is ${overflow}px wider than the screen`);

  assert.deepEqual(problems, []);
  await context.close();
});
