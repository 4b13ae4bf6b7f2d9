import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertError } from '../wire.js';
import { AWKWARD, fileParam, globParam, logsOf, resultsOf, type IoWorld } from './world.js';

/** How the storage of the backend under test is listed on the wire (s3 bucket-contents, or Azure container-contents). */
export type Lister = (w: IoWorld, bucket: string, prefix: string) => string;

export const s3Listing: Lister = (w, bucket, prefix) =>
  `/api/v1/data-access/s3/bucket-contents?bucket=${bucket}&path=${encodeURIComponent(prefix)}&teamId=${w.ws}`;

export const azureListing =
  (account: string): Lister =>
  (w, container, prefix) =>
    `/api/v1/data-access/azure/container-contents?containerName=${container}&storageAccountName=${account}&path=${encodeURIComponent(`${prefix}/`)}&teamId=${w.ws}`;

/** Waits (bounded) until a local path is gone: local copies are removed right after the final status is written. */
export async function gone(file: string): Promise<void> {
  const until = Date.now() + 5000;
  while (existsSync(file)) {
    assert.ok(Date.now() < until, `${file} is still there`);
    await sleep(20);
  }
}

async function listed(w: IoWorld, list: Lister, where: { bucket: string; prefix: string }) {
  const r = await w.req('GET', list(w, where.bucket, where.prefix));
  assert.equal(r.statusCode, 200, r.body);
  return (r.json().contents as { name: string; isDir: boolean }[]).map((c) => `${c.name}${c.isDir ? '/' : ''}`).sort();
}

/**
 * File inputs and job outputs, the same on every storage backend: a file uploaded to Data read by
 * a bash job by id and by glob, globs over virtual folders, datasets and S3/Azure folders, the
 * logs and results listed by the storage routes afterwards, parametersFile, and a Nextflow resume
 * in the parent's work directory.
 */
export function inputScenarios(world: () => IoWorld, list: Lister, options: { embeddedType: 'S3File' | 'AzureBlobFile' }): void {
  let firstResults: { folderId: string } | undefined;

  it('a bash job reads a file uploaded to Data, by its File Explorer id (dataItem), byte for byte; its logs and results are listed in the store', async () => {
    const w = world();
    const file = await w.upload('reads.fq', AWKWARD);
    const doc = await w.bash(
      'cat "$RUNYARD_PARAM_IN" > "$RUNYARD_RESULTS_DIR/out.bin"; printf "%s" "$RUNYARD_FILES_IN" > "$RUNYARD_RESULTS_DIR/files.txt"; echo read; :',
      [fileParam('in', file._id)],
    );
    assert.equal(doc.status, 'completed', doc.statusMessage);
    // The job document shows the file where it is stored, not its id (wire-api §2.1).
    const item = (doc.parameters as Array<{ dataItem: { item: Record<string, unknown> } }>)[0].dataItem.item;
    assert.equal(item._id, file._id);
    assert.equal(item.s3ObjectKey ?? item.blobName, file.s3ObjectKey ?? file.blobName);
    const results = resultsOf(doc);
    assert.deepEqual(await w.readBytes(`${results.prefix}/out.bin`), AWKWARD);
    assert.match(await w.read(`${results.prefix}/files.txt`), /\/reads\.fq$/);
    assert.deepEqual(await listed(w, list, results), ['files.txt', 'out.bin']);
    assert.ok((await listed(w, list, logsOf(doc))).includes('stdout.txt'));
    assert.match(await w.read(`${logsOf(doc).prefix}/stdout.txt`), /^read$/m);
    // Staged inputs are gone once the job settled; on S3 and Azure its local copies too.
    await gone(path.join(w.s.config.dataDir, 'run', doc._id, 'inputs'));
    await gone(path.join(w.s.config.dataDir, 'scratch', w.bucket, w.ws, 'jobs', doc._id));
    firstResults = doc.analysisResults;
  });

  it('a bash job takes a glob over a virtual folder of Data: the directory joined with the pattern, expanded by bash, and RUNYARD_FILES_<NAME>', async () => {
    const w = world();
    const reads = await w.mkdir('reads', { kind: 'Dataset', id: w.datasets.Data._id });
    const lane2 = await w.mkdir('lane2', { kind: 'Folder', id: reads._id });
    await w.upload('b.fq', 'BBB\n', reads._id);
    await w.upload('a.fq', AWKWARD, reads._id);
    await w.upload('notes.txt', 'not a read\n', reads._id);
    await w.upload('c.fq', 'CCC\n', lane2._id);
    const doc = await w.bash(
      'for f in $RUNYARD_PARAM_READS; do cat "$f"; done > "$RUNYARD_RESULTS_DIR/all.fq"; printf "%s\\n" "$RUNYARD_FILES_READS" | sed "s#.*/##" > "$RUNYARD_RESULTS_DIR/names.txt"; printf "%s" "$RUNYARD_PARAM_READS" > "$RUNYARD_RESULTS_DIR/value.txt"; :',
      [globParam('reads', reads._id, '*.fq')],
    );
    assert.equal(doc.status, 'completed', doc.statusMessage);
    const { prefix } = resultsOf(doc);
    assert.deepEqual(await w.readBytes(`${prefix}/all.fq`), Buffer.concat([AWKWARD, Buffer.from('BBB\n')]));
    assert.equal(await w.read(`${prefix}/names.txt`), 'a.fq\nb.fq\n');
    assert.match(await w.read(`${prefix}/value.txt`), /\/\*\.fq$/);
    // ** crosses folders; the variable lists every match.
    const deep = await w.bash(
      'printf "%s\\n" "$RUNYARD_FILES_READS" | sed "s#.*/reads/##" > "$RUNYARD_RESULTS_DIR/names.txt"; cat $RUNYARD_FILES_READS > "$RUNYARD_RESULTS_DIR/all.fq"; :',
      [globParam('reads', reads._id, '**/*.fq')],
    );
    assert.equal(deep.status, 'completed', deep.statusMessage);
    assert.equal(await w.read(`${resultsOf(deep).prefix}/names.txt`), 'a.fq\nb.fq\nlane2/c.fq\n');
    assert.deepEqual(await w.readBytes(`${resultsOf(deep).prefix}/all.fq`), Buffer.concat([AWKWARD, Buffer.from('BBB\nCCC\n')]));
  });

  it('a glob over the Data dataset itself, and over a job results folder (an S3 or Azure folder)', async () => {
    const w = world();
    await w.upload('top.csv', 'a,b\n1,2\n');
    const data = await w.bash('cat $RUNYARD_PARAM_TABLE > "$RUNYARD_RESULTS_DIR/top.csv"; :', [
      globParam('table', w.datasets.Data._id, '*.csv'),
    ]);
    assert.equal(data.status, 'completed', data.statusMessage);
    assert.equal(await w.read(`${resultsOf(data).prefix}/top.csv`), 'a,b\n1,2\n');
    assert.ok(firstResults, 'the first test ran');
    const folder = await w.bash('cat $RUNYARD_PARAM_PREV > "$RUNYARD_RESULTS_DIR/copy.bin"; :', [
      globParam('prev', firstResults.folderId, '*.bin'),
    ]);
    assert.equal(folder.status, 'completed', folder.statusMessage);
    assert.deepEqual(await w.readBytes(`${resultsOf(folder).prefix}/copy.bin`), AWKWARD);
  });

  it('a Nextflow job gets its parametersFile (YAML) under its own parameters, a data item as a path, and outdir results/ in its results folder', async () => {
    const w = world();
    const params = await w.upload('params.yaml', 'genome: hg19\nreads: from-file\nnested:\n  depth: 2\nflag: true\n');
    const annot = await w.upload('annot.gtf', 'gene\n');
    const doc = await w.nextflow(
      [{ prefix: '--', name: 'reads', parameterKind: 'textValue', textValue: 'explicit' }, fileParam('annot', annot._id)],
      { parametersFile: { dataItem: { kind: 'File', item: params._id } } },
    );
    assert.equal(doc.status, 'completed', doc.statusMessage);
    const results = resultsOf(doc);
    assert.deepEqual(await listed(w, list, results), ['results/']);
    const result = JSON.parse(await w.read(`${results.prefix}/results/result.txt`));
    assert.equal(result.params.genome, 'hg19');
    assert.equal(result.params.reads, 'explicit');
    assert.deepEqual(result.params.nested, { depth: 2 });
    assert.equal(result.params.flag, true);
    assert.match(result.params.annot, /\/annot\.gtf$/);
    assert.match(result.params.outdir, /\/results\/results$/);
    assert.deepEqual(
      (await listed(w, list, logsOf(doc))).filter((n) => ['.nextflow.log', 'stdout.txt', 'trace.txt'].includes(n)),
      ['.nextflow.log', 'stdout.txt', 'trace.txt'],
    );
    // The same file named by bucket and key (the s3:// or az:// form of the public client).
    const embedded =
      options.embeddedType === 'S3File'
        ? { type: 'S3File', data: { name: 'params.yaml', s3BucketName: params.s3BucketName, s3ObjectKey: params.s3ObjectKey } }
        : {
            type: 'AzureBlobFile',
            data: {
              name: 'params.yaml',
              blobStorageAccountName: params.blobStorageAccountName,
              blobContainerName: params.blobContainerName,
              blobName: params.blobName,
            },
          };
    const again = await w.nextflow([], { parametersFile: { dataItemEmbedded: embedded } });
    assert.equal(again.status, 'completed', again.statusMessage);
    const second = JSON.parse(await w.read(`${resultsOf(again).prefix}/results/result.txt`));
    assert.equal(second.params.reads, 'from-file');
  });

  it("a resumed Nextflow job runs in its parent work directory with -resume and does not re-run the parent's finished tasks", async () => {
    const w = world();
    // The fixture's second process fails: the first one finished.
    const failAt = { prefix: '--', name: 'failAt', parameterKind: 'textValue', textValue: '2' };
    const parent = await w.nextflow([failAt], { resumable: true, name: 'first' });
    assert.equal(parent.status, 'failed', parent.statusMessage);
    assert.ok(parent.resumeWorkDir, 'a resumable job offers its work directory');
    const child = await w.nextflow([], { resumable: true, name: 'again', resumeWorkDir: parent.resumeWorkDir });
    assert.equal(child.status, 'completed', child.statusMessage);
    assert.equal(child.workDirectory.folderId, parent.workDirectory.folderId);
    const workPrefix = `${logsOf(parent).prefix.replace(/\/logs$/, '')}/work`;
    // The fixture appends its run to .nextflow/history in its launch directory: both runs are in the parent's.
    const history = (await w.read(`${workPrefix}/.nextflow/history`)).trim().split('\n');
    assert.equal(history.length, 2, history.join('\n'));
    assert.match(history[0], new RegExp(`runyard-${parent._id}-1`));
    assert.match(history[1], new RegExp(`runyard-${child._id}-1`));
    const childLog = await w.read(`${logsOf(child).prefix}/.nextflow.log`);
    const argv = JSON.parse(/argv: (\[.*\])/.exec(childLog)![1]) as string[];
    assert.ok(argv.includes('-resume'), argv.join(' '));
    assert.match(argv[argv.indexOf('-work-dir') + 1], new RegExp(`/jobs/${parent._id}/work$`));
    const result = JSON.parse(await w.read(`${resultsOf(child).prefix}/results/result.txt`));
    assert.equal(result.resume, true);
    assert.equal(result.cached, 1);
    const parentOut = await w.read(`${logsOf(parent).prefix}/stdout.txt`);
    const childOut = await w.read(`${logsOf(child).prefix}/stdout.txt`);
    assert.match(parentOut, /process > PROC_1 \[100%\] 1 of 1 ✔/);
    assert.match(parentOut, /process > PROC_2 \[100%\] 1 of 1 FAILED/);
    // The child resumed the parent's session: PROC_1 is cached, not run again; PROC_2 ran.
    assert.match(childOut, /^\[[0-9a-f]{2}\/[0-9a-f]{6}\] Cached process > PROC_1$/m);
    assert.doesNotMatch(childOut, /process > PROC_1 \[100%\]/);
    assert.match(childOut, /process > PROC_2 \[100%\] 1 of 1 ✔/);
    assert.equal(history[0].split('\t')[5], history[1].split('\t')[5], 'one session');
    const trace = (await w.read(`${logsOf(child).prefix}/trace.txt`)).trim().split('\n').slice(1);
    assert.deepEqual(
      trace.map((l) => l.split('\t').slice(3, 5).join(' ')),
      ['PROC_1 CACHED', 'PROC_2 COMPLETED'],
    );
    // The child wrote no work directory of its own.
    assert.deepEqual((await w.blobs.list(w.bucket, `${logsOf(child).prefix.replace(/\/logs$/, '')}/work`)).entries, []);
  });

  it('refuses, at submission and creating nothing, a file or folder of another workspace, a bad pattern, and a parametersFile it may not read', async () => {
    const w = world();
    const other = await w.s.newTenant(`io${Date.now()}`);
    const project = await w.req('POST', `/api/v1/projects?teamId=${other.workspaceId}`, { name: 'theirs' }, other);
    assert.equal(project.statusCode, 200, project.body);
    const theirs = await w.upload('secret.fq', 'secret\n', undefined, { ...other, projectId: project.json()._id });
    const theirFolder = (
      await w.req('GET', `/api/v2/datasets?projectId=${project.json()._id}&teamId=${other.workspaceId}`, undefined, other)
    )
      .json()
      .datasets.find((d: { kind: string }) => d.kind === 'Data');
    const mine = await w.upload('mine.txt', 'mine\n');
    const before = await w.jobCount();
    const msg = assertError(await w.submitBash('cat "$2"', [fileParam('input', theirs._id)]), 404, 'FILE_NOT_FOUND');
    assert.match(msg, /"input"/);
    assert.match(
      assertError(await w.submitBash('cat $2', [globParam('many', theirFolder._id, '*.fq')]), 404, 'FOLDER_NOT_FOUND'),
      /"many"/,
    );
    assertError(await w.submitBash('cat "$2"', [fileParam('input', '0123456789abcdef01234567')]), 404, 'FILE_NOT_FOUND');
    for (const pattern of ['../*.fq', '/etc/*', 'a/../../b', '[abc', '{a,b']) {
      assert.match(
        assertError(await w.submitBash('cat $2', [globParam('g', w.datasets.Data._id, pattern)]), 400, 'VALIDATION_FAILED'),
        /"g"/,
      );
    }
    assertError(
      await w.submitBash('cat $2', [{ prefix: '--', name: 'g', parameterKind: 'globPattern', globPattern: '*.fq' }]),
      400,
      'VALIDATION_FAILED',
    );
    assertError(await w.submitNextflow([], { parametersFile: { dataItem: { kind: 'File', item: theirs._id } } }), 404, 'FILE_NOT_FOUND');
    assertError(await w.submitNextflow([], { parametersFile: { dataItem: { kind: 'File', item: mine._id } } }), 400, 'VALIDATION_FAILED');
    const theirObject =
      options.embeddedType === 'S3File'
        ? { type: 'S3File', data: { name: 'p.json', s3BucketName: theirs.s3BucketName, s3ObjectKey: theirs.s3ObjectKey } }
        : {
            type: 'AzureBlobFile',
            data: {
              name: 'p.json',
              blobStorageAccountName: theirs.blobStorageAccountName,
              blobContainerName: theirs.blobContainerName,
              blobName: theirs.blobName,
            },
          };
    assert.equal(await w.jobCount(), before);
    // An s3:// or az:// object is checked when the job starts (the public client sends any bucket): the job fails, naming it.
    const job = await w.nextflow([], { parametersFile: { dataItemEmbedded: theirObject } });
    assert.equal(job.status, 'failed');
    assert.match(
      job.statusMessage,
      /^The input parametersFile could not be staged: parametersFile: ".*" in ".*" not found in this workspace\.$/,
    );
  });
}
