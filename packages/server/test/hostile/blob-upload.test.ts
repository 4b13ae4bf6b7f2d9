// T17 (../shared/design/reliability-security.md), "swapped during an upload": the push of a job's
// logs and results to S3 (storage/blob-sync.ts) while the job swaps them for links to the server's
// own files. Two levels:
// - a real job (the API, the scheduler, the local executor with bubblewrap, the server on s3rver)
//   that writes a big log, then swaps its log and a result for a symbolic link to the server's
//   secret key and back, in a tight loop, while the server pushes the log many times: no object
//   of the S3 server holds the key's bytes, the log the API serves is only what the job printed,
//   the data directory is unchanged, and the server answered no 5xx;
// - pushDir itself, with a store wrapper that swaps a file for a link at a chosen moment: between
//   the walk that found the file and its open (the check-then-open window), and after the first
//   chunk of its upload was read. Both happen in every run, whatever the machine's speed.
// A hard link to the key cannot be made from the sandbox (the key is not in the task's view, and
// each of its directories is a mount of its own): the job tries, and the test checks that it failed.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { s3BackendEnv, startS3Server, type S3TestServer } from '../../../../test/support/s3-server.js';
import { taskPaths, type JobPaths } from '../../src/scheduler/job-paths.js';
import { writeInitialAdminFile } from '../../src/services/bootstrap.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import { pushDir } from '../../src/storage/blob-sync.js';
import { S3BlobStore } from '../../src/storage/s3.js';
import { seal } from '../../src/store/secret-box.js';
import { ioWorld, type IoWorld } from '../job-io/world.js';
import { drain, sseReader } from '../sse-reader.js';
import { snapshot } from './world.js';

const MIB = 1024 * 1024;

/** Whether `haystack` holds `needle` anywhere. */
const holds = (haystack: Buffer, needle: Buffer) => haystack.indexOf(needle) >= 0;

/** Waits (bounded: a hang guard, generous for a loaded machine) until `ready` answers true. */
async function until(what: string, ready: () => Promise<boolean> | boolean, ms = 300_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > end) assert.fail(`${what}: not after ${ms / 1000} s`);
    await sleep(50);
  }
}

/** Every file below dir (s3rver keeps each object as files of its directory), with its bytes. */
function filesBelow(dir: string): { file: string; bytes: Buffer }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .map((file) => ({ file, bytes: readFileSync(file) }));
}

/** What an UploadTap saw: every request the server sent to the S3 server, its body scanned as it passed. */
interface UploadTap {
  url: string;
  /** Each request, once its body was read: method, path (decoded) and query, and the bytes of its body. */
  requests: { method: string; url: string; bytes: number }[];
  /** What is looked for (set once known: the server makes its key after it started). */
  needles: Buffer[];
  /** `<method> <path>` of each request whose body held one of the needles. */
  found: string[];
  close(): Promise<void>;
}

/**
 * A proxy on loopback in front of the S3 server that looks for its needles in every request body
 * it forwards: an object uploaded with the key and then overwritten by a later push is seen too.
 */
async function startUploadTap(target: string): Promise<UploadTap> {
  const upstream = new URL(target);
  const tap: Omit<UploadTap, 'url' | 'close'> = { requests: [], needles: [], found: [] };
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    let tail = Buffer.alloc(0);
    let size = 0;
    let hit = false;
    req.on('data', (chunk: Buffer) => {
      const window = Buffer.concat([tail, chunk]);
      if (!hit && tap.needles.some((n) => holds(window, n))) {
        hit = true;
        tap.found.push(`${req.method} ${url}`);
      }
      // Enough of the end kept for a needle cut across two chunks.
      const keep = Math.max(0, ...tap.needles.map((n) => n.length - 1));
      tail = window.subarray(window.length - Math.min(keep, window.length));
      size += chunk.length;
    });
    req.on('end', () => tap.requests.push({ method: req.method ?? '', url, bytes: size }));
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(tap, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

// The job. Its log is written by the shell to the file the server opened (its stdout), whatever
// the name `stdout.txt` holds meanwhile. The server made that file: a task of a root server (another
// user) may not even hard-link it (protected_hardlinks), but it may rename it in its own directory.
const BIG_LINE = 'BIG a line of the big log, many of them, so that each upload of it takes a while';
/** Lines of BIG_LINE: more than one S3 part (8 MiB), so each push of the log is a multipart upload. */
const BIG_LINES = Math.ceil((9 * MIB) / (BIG_LINE.length + 1));

/**
 * The swapper (python, for a loop tight enough to land between any two steps of the server): a
 * symbolic link to the key is made as `keep.txt` beside the log and the result, then each turn
 * exchanges the two names (renameat2's RENAME_EXCHANGE: one step, no moment without either), so
 * that each name is the file half the time and the link the other half; `swapping` in the work
 * directory says it started, `stop` there (the test's) ends it, the links left in the names the
 * server knows (stdout.txt, out.txt).
 */
const SWAPPER = [
  'import ctypes, os, sys',
  'key, logs, results = sys.argv[1:4]',
  'libc = ctypes.CDLL(None, use_errno=True)',
  'pairs = [((d + "/" + n).encode(), (d + "/keep.txt").encode()) for d, n in ((logs, "stdout.txt"), (results, "out.txt"))]',
  'def exchange(a, b):',
  '    if libc.renameat2(-100, a, -100, b, 2) != 0:',
  '        raise OSError(ctypes.get_errno(), "renameat2")',
  'for name, kept in pairs:',
  '    os.symlink(key, kept)',
  'open("swapping", "w").close()',
  'turns = 0',
  'while not os.path.exists("stop"):',
  '    for name, kept in pairs:',
  '        exchange(name, kept)',
  '    turns += 1',
  'for name, kept in pairs:',
  '    if not os.path.islink(name):',
  '        exchange(name, kept)',
  'print("SWAPS", turns, flush=True)',
].join('\n');

const COMMAND = [
  // The data directory and the job's directories, from the task's own paths, as an attacker finds them.
  'D=${PWD%%/scratch/*}; R="$RUNYARD_RESULTS_DIR"; L="$R/../logs"',
  `yes '${BIG_LINE}' | head -n ${BIG_LINES}`,
  'echo result > "$R/out.txt"',
  // Hard links to the key: refused, the key is not in the sandbox (and would be on another mount).
  'for d in "$L" "$R"; do',
  '  if msg=$(ln "$D/secret.key" "$d/hard.txt" 2>&1); then echo HARDLINK-MADE; else echo "HARDLINK-REFUSED $msg"; fi',
  'done',
  `/usr/bin/python3 -c '${SWAPPER}' "$D/secret.key" "$L" "$R" &`,
  'S=$!',
  // The log keeps growing, so that every push uploads it again; it ends with the swapper.
  'i=0; while [ ! -e stop ] && kill -0 $S 2>/dev/null; do echo "tick $i"; i=$((i+1)); sleep 0.02; done',
  'wait $S',
  'echo "END $?"',
].join('\n');

const FINAL = ['completed', 'failed', 'aborted'];

/** Every whole line the job's log may hold: what the job prints, and the server's own notes (no container runtime here). */
const JOB_LINE = new RegExp(`^(${BIG_LINE}|tick \\d+|HARDLINK-REFUSED .*|SWAPS \\d+|END \\d+|Runyard: [^\\x00-\\x1f]*)$`);

/** Checks that text is only lines the job printed (its last line may be cut where an upload stopped reading). */
function onlyJobLines(text: string, what: string): void {
  assert.ok(!text.includes('\uFFFD'), `${what}: bytes that are not text (the key is 32 random bytes)`);
  const lines = text.split('\n');
  const last = lines.pop()!;
  for (const line of lines) assert.match(line, JOB_LINE, `${what}: a line the job did not print`);
  assert.match(last, /^[\x20-\x7e]*$/, `${what}: its unfinished last line`);
}

describe('T17: a log and a result swapped for links to the server key while S3 uploads them (bwrap)', { timeout: 900_000 }, () => {
  let s3: S3TestServer;
  let tap: UploadTap;
  let w: IoWorld;
  before(async () => {
    s3 = await startS3Server();
    tap = await startUploadTap(s3.endpoint);
    // The server reaches the S3 server through the tap; at debug level it logs every request it answered, with its status.
    w = await ioWorld({
      ...s3BackendEnv(s3),
      RUNYARD_S3_ENDPOINT: tap.url,
      RUNYARD_SANDBOX: 'bwrap',
      RUNYARD_LOG_SYNC_MS: '100',
      RUNYARD_LOG_LEVEL: 'debug',
    });
  });
  after(async () => {
    await w?.close();
    await tap?.close();
    await s3?.stop();
  });

  it('no object of the S3 server holds the key, the API serves only the job’s lines, the data directory is unchanged', async (t) => {
    const { dataDir, secretKeyFile } = w.s.config;
    // The server's own secrets, made by its own code: its key (made on first use) and the first admin's file.
    seal(secretKeyFile, 'made on first use');
    writeInitialAdminFile(dataDir, w.s.url, { workspaceId: w.ws, apikey: w.s.admin.apikey });
    const key = readFileSync(secretKeyFile);
    assert.equal(key.length, 32);
    tap.needles = [key, Buffer.from(w.s.admin.apikey)];
    // A first job makes what the server makes for any task (its copy of /etc for the sandbox).
    assert.equal((await w.bash('echo warm', [])).status, 'completed');
    const except = [path.join(dataDir, 'scratch'), path.join(dataDir, 'run')];
    const before = snapshot(dataDir, except);
    assert.ok(before.has(secretKeyFile) && before.has(path.join(dataDir, 'initial-admin.json')), [...before.keys()].join('\n'));

    const submitted = await w.submitBash(COMMAND, []);
    assert.equal(submitted.statusCode, 200, submitted.body);
    const id = submitted.json().jobId as string;
    const paths = await taskPaths(dataDir, w.blobs, { id, workspace_id: w.ws });
    const status = async () => {
      const r = await w.req('GET', `/api/v1/jobs/${id}?teamId=${w.ws}`);
      assert.ok(r.statusCode < 500, r.body);
      return r.json().status as string;
    };
    try {
      t.diagnostic(await attackAndCheck(id, paths, status, key, before, except));
    } finally {
      // A failed check leaves nothing running: the job is told to stop, then aborted.
      if (!FINAL.includes(await status())) {
        if (existsSync(paths.work)) writeFileSync(path.join(paths.work, 'stop'), '');
        await w.req('PUT', `/api/v2/jobs/${id}/abort?teamId=${w.ws}&forceAbort=true`);
        await w.finished(id);
      }
    }
  });

  async function attackAndCheck(
    id: string,
    paths: JobPaths,
    status: () => Promise<string>,
    key: Buffer,
    before: Map<string, string>,
    except: string[],
  ): Promise<string> {
    const { dataDir } = w.s.config;
    // The log as the API serves it while the job runs (its local copy), to its end.
    const events = (offset = 0) =>
      fetch(`${w.s.url}/api/runyard/jobs/${id}/events?teamId=${w.ws}&offset=${offset}`, { headers: { apikey: w.s.admin.apikey } });
    const liveReply = await events();
    assert.equal(liveReply.status, 200);
    const live = drain(sseReader(liveReply.body!));
    live.catch(() => undefined); // awaited below; a check that fails first leaves it to the server's close

    await until('the swapper started', async () => {
      if (existsSync(path.join(paths.work, 'swapping'))) return true;
      const now = await status();
      assert.ok(!FINAL.includes(now), `the job ended (${now}) before it swapped`);
      return false;
    });
    // Many pushes of the log while it is swapped, counted as the tap sees them end (the multipart
    // upload's completion): each uploads the log under the name it had when the push listed the
    // directory (stdout.txt or keep.txt), a name that is sometimes a link by the time the push opens
    // it: that is the race. The log grows, so every push that finds it uploads it again.
    const logKey = `${paths.prefix}/logs/stdout.txt`;
    const keepKey = `${paths.prefix}/logs/keep.txt`;
    const from = tap.requests.length;
    /** Completed multipart uploads of an object (POST <key>?uploadId=...) since the swapping began. */
    const pushes = (key: string) =>
      tap.requests.slice(from).filter((r) => {
        const [where, query = ''] = r.url.split('?');
        return r.method === 'POST' && where === `/${w.bucket}/${key}` && /(^|&)uploadId=/.test(query);
      }).length;
    await until('thirty pushes of the log while it was swapped', async () => {
      assert.equal(await status(), 'running', 'the job ended while it swapped');
      return pushes(logKey) + pushes(keepKey) >= 30 && pushes(logKey) >= 3 && pushes(keepKey) >= 3;
    });
    writeFileSync(path.join(paths.work, 'stop'), '');
    const doc = await w.finished(id);
    assert.equal(doc.status, 'completed', JSON.stringify(doc.statusMessage ?? null));

    // Every upload the server made (each push of the log, each part), as it went to the S3 server.
    assert.deepEqual(tap.found, [], 'an upload held the server key or the admin key');
    const uploaded = tap.requests.filter((r) => r.bytes > 0);
    const mib = Math.round(uploaded.reduce((n, r) => n + r.bytes, 0) / MIB);
    // Every object the S3 server holds (this job's logs, results and work directory, any other), as s3rver keeps them.
    const stored = filesBelow(s3.directory);
    assert.ok(stored.length > 0);
    for (const { file, bytes } of stored) {
      assert.ok(!holds(bytes, key), `the S3 server's ${file} holds the server key`);
      assert.ok(!holds(bytes, Buffer.from(w.s.admin.apikey)), `the S3 server's ${file} holds the admin's key`);
    }
    // The job's objects through the store: the log and the result under their kept names, the
    // result's link never uploaded (results are pushed at the end, when it is a link), no hard link.
    const objects = (await w.blobs.list(w.bucket, paths.prefix)).entries.map((e) => e.key.slice(paths.prefix.length + 1));
    for (const name of ['logs/stdout.txt', 'logs/keep.txt', 'results/keep.txt']) assert.ok(objects.includes(name), objects.join(' '));
    for (const name of ['results/out.txt', 'logs/hard.txt', 'results/hard.txt']) assert.ok(!objects.includes(name), objects.join(' '));
    for (const name of objects) assert.ok(!holds(await w.readBytes(`${paths.prefix}/${name}`), key), `${name} holds the server key`);
    assert.equal(await w.read(`${paths.prefix}/results/keep.txt`), 'result\n');
    const kept = await w.read(keepKey);
    onlyJobLines(kept, 'logs/keep.txt');
    assert.equal(kept.match(/^HARDLINK-REFUSED .*No such file or directory$/gm)?.length, 2, 'the key is in the sandbox');
    const turns = Number(/^SWAPS (\d+)$/m.exec(kept)?.[1]);
    assert.ok(turns >= 10 && kept.endsWith('END 0\n'), kept.slice(-300));
    const storedLog = await w.read(logKey);
    onlyJobLines(storedLog, 'logs/stdout.txt');

    // The log as the API served it while the job ran, and after its end (from the store).
    const { text: liveText, end } = await live;
    assert.equal(end?.data.status, 'completed');
    onlyJobLines(liveText, 'the live event stream');
    const replayReply = await events();
    assert.equal(replayReply.status, 200);
    const replay = await drain(sseReader(replayReply.body!));
    assert.equal(replay.text, storedLog, 'the event stream after the end is the stored log');

    assert.deepEqual(snapshot(dataDir, except), before, 'a file of the data directory changed');
    const answered = w.s.logs.filter((l) => l.includes('"request completed"'));
    assert.ok(answered.length > 0, 'the server logs the requests it answered');
    assert.deepEqual(
      answered.filter((l) => /"statusCode":5\d\d/.test(l)),
      [],
      'the server answered 5xx',
    );
    // Nothing failed on the server's side: no error, no push that could not be made.
    assert.deepEqual(
      w.s.logs.filter((l) => /"level":(50|60)/.test(l) || /could not upload/.test(l)),
      [],
      'the server logged errors',
    );
    return `${turns} swaps; the log pushed ${pushes(logKey)} times as stdout.txt and ${pushes(keepKey)} as keep.txt while swapped; ${uploaded.length} requests with a body (${mib} MiB) scanned`;
  }
});

/**
 * A store that calls `swap` once, at the moment named: after the listing of the remote folder
 * (pushDir lists it after its walk found the files, before it opens them), or when the first
 * chunk of the upload of `key` has been read.
 */
function swappingStore(inner: BlobStore, when: 'after-list' | { firstChunkOf: string }, swap: () => void): BlobStore {
  let swapped = false;
  const once = () => {
    if (swapped) return;
    swapped = true;
    swap();
  };
  return {
    kind: inner.kind,
    list: async (bucket, prefix, options) => {
      const page = await inner.list(bucket, prefix, options);
      if (when === 'after-list') once();
      return page;
    },
    put: (bucket, key, body, options) => {
      if (Buffer.isBuffer(body) || when === 'after-list' || key !== when.firstChunkOf) return inner.put(bucket, key, body, options);
      const tapped = async function* () {
        for await (const chunk of body) {
          yield chunk as Buffer;
          once();
        }
      };
      return inner.put(bucket, key, Readable.from(tapped(), { objectMode: false }), options);
    },
    get: (bucket, key, range) => inner.get(bucket, key, range),
    stat: (bucket, key) => inner.stat(bucket, key),
    delete: (bucket, key) => inner.delete(bucket, key),
    deletePrefix: (bucket, prefix) => inner.deletePrefix(bucket, prefix),
    copy: (bucket, fromKey, toBucket, toKey) => inner.copy(bucket, fromKey, toBucket, toKey),
    ensureBucket: (bucket) => inner.ensureBucket(bucket),
  };
}

describe('pushDir and a file swapped for a link at a chosen moment (S3)', { timeout: 300_000 }, () => {
  let s3: S3TestServer;
  let store: S3BlobStore;
  let base: string;
  let keyFile: string;
  let key: Buffer;
  const bucket = 'swap-test';
  before(async () => {
    s3 = await startS3Server();
    store = new S3BlobStore({
      endpoint: s3.endpoint,
      region: s3.region,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
      partSize: 5 * MIB,
    });
    base = mkdtempSync(path.join(os.tmpdir(), 'blob-upload-'));
    keyFile = path.join(base, 'secret.key');
    key = randomBytes(32);
    writeFileSync(keyFile, key, { mode: 0o600 });
  });
  after(async () => {
    store?.destroy();
    await s3?.stop();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  /** A job's logs directory: stdout.txt (`size` bytes) and a small other file. */
  function logsDir(name: string, size: number): { dir: string; log: string; content: Buffer } {
    const dir = path.join(base, name);
    mkdirSync(dir);
    const content = Buffer.alloc(size, 'log line of the job\n');
    writeFileSync(path.join(dir, 'stdout.txt'), content);
    writeFileSync(path.join(dir, 'other.txt'), 'other\n');
    return { dir, log: path.join(dir, 'stdout.txt'), content };
  }

  /** Renames a new symbolic link to the key over `file` (one step: the name is a file, then a link). */
  const toLink = (file: string) => {
    symlinkSync(keyFile, `${file}.link`);
    renameSync(`${file}.link`, file);
  };

  const objectsOf = async (prefix: string) => {
    const out = new Map<string, Buffer>();
    for (const e of (await store.list(bucket, prefix)).entries) {
      const chunks: Buffer[] = [];
      for await (const c of await store.get(bucket, e.key)) chunks.push(c as Buffer);
      out.set(e.key.slice(prefix.length + 1), Buffer.concat(chunks));
    }
    return out;
  };

  it('a file swapped for a link between the walk that found it and its open is not uploaded', async () => {
    const { dir, log } = logsDir('walk-then-open', 64 * 1024);
    let wasFile = false;
    const swapping = swappingStore(store, 'after-list', () => {
      wasFile = !readdirSync(dir, { withFileTypes: true })
        .find((e) => e.name === 'stdout.txt')!
        .isSymbolicLink();
      toLink(log);
    });
    const result = await pushDir(swapping, dir, bucket, 'walk');
    assert.ok(wasFile, 'the swap came after the walk found stdout.txt a file');
    const objects = await objectsOf('walk');
    for (const [name, bytes] of objects) assert.ok(!holds(bytes, key), `${name} holds the key`);
    assert.deepEqual([...objects.keys()], ['other.txt'], 'only the file that stayed a file is uploaded');
    assert.equal(result.copied, 1);
  });

  it('a file swapped for a link while its upload reads it: the upload is the original file, and the next push refuses the link', async () => {
    // 12 MiB: three parts of 5 MiB, the swap after the first chunk (64 KiB) of the first.
    const { dir, log, content } = logsDir('during-upload', 12 * MIB);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    let swapped = false;
    const swapping = swappingStore(store, { firstChunkOf: 'during/stdout.txt' }, () => {
      toLink(log);
      swapped = true;
    });
    const first = await pushDir(swapping, dir, bucket, 'during');
    assert.ok(swapped, 'the log was swapped during its upload');
    assert.equal(first.copied, 2);
    let objects = await objectsOf('during');
    assert.equal(objects.get('stdout.txt')?.length, content.length);
    assert.equal(sha(objects.get('stdout.txt')!), sha(content), 'the upload is the file that was opened, whole');
    // The next push: the name is a link now, and it is not followed, even when the store has no copy.
    const second = await pushDir(store, dir, bucket, 'during');
    assert.equal(second.copied, 0);
    await store.delete(bucket, 'during/stdout.txt');
    const third = await pushDir(store, dir, bucket, 'during');
    assert.equal(third.copied, 0);
    objects = await objectsOf('during');
    for (const [name, bytes] of objects) assert.ok(!holds(bytes, key), `${name} holds the key`);
    assert.deepEqual([...objects.keys()], ['other.txt']);
  });
});
