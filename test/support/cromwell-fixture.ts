/**
 * A stand-in for a Cromwell server, for the tests of Runyard's Cromwell driver: Cromwell (a JVM
 * server) is not installable here, so this small HTTP server follows Cromwell's documented REST
 * API instead (engine/src/main/resources/swagger/cromwell.yaml and the routes of
 * CromwellApiService.scala / MetadataRouteSupport.scala / PartialWorkflowSources.scala):
 *
 *   POST /api/workflows/v1                 multipart: workflowSource (or workflowUrl, refused here),
 *                                          workflowInputs, workflowOptions, labels, workflowDependencies,
 *                                          requestedWorkflowId, workflowType(Version), workflowOnHold;
 *                                          201 {id, status: "Submitted"}; 400 {status: "fail", message}
 *                                          for a missing source ("Error(s): workflowSource or workflowUrl
 *                                          needs to be supplied"), an unknown part, bad JSON; 415 when not multipart
 *   GET  /api/workflows/v1/{id}/status     {id, status}: Submitted, Running, Aborting, Aborted, Failed, Succeeded
 *   POST /api/workflows/v1/{id}/abort      {id, status: "Aborting" | "Aborted"}; 404 when not in progress
 *   GET  /api/workflows/v1/{id}/outputs    {id, outputs: {"wf.out": value}}
 *   GET  /api/workflows/v1/{id}/logs       {id, calls: {"wf.call": [{stdout, stderr, shardIndex, attempt}]}}
 *   GET  /api/workflows/v1/{id}/metadata   workflow and call metadata (calls[].executionStatus, stdout,
 *                                          stderr, callRoot, returnCode, callCaching.hit, failures[].message
 *                                          and causedBy, ...); includeKey narrows it
 *   GET  /engine/v1/version, /engine/v1/status
 *
 * An unknown workflow id is 404 ("Unrecognized workflow ID: ..."), a malformed one 400. Workflows
 * run with the small WDL 1.0 interpreter of cromwell-fixture/ (wdl.ts: the subset; run.ts: calls
 * under `bash -c` in <root>/<workflow>/<id>/call-<call>/execution, call caching, abort, failures,
 * the per-workflow log and its copy to final_workflow_log_dir, metadata `workflowLog`).
 * The server's configuration is in the options, with Cromwell's defaults (reference.conf): call
 * caching off (call-caching.enabled = false) unless callCaching; workflow logs only where
 * workflowLogDir is given (workflow-options.workflow-log-dir; cromwell-fixture/java.ts, which
 * reads Cromwell's configuration, defaults it as Cromwell does), temporary unless
 * workflowLogTemporary is false. The fixture's own choice: a requestedWorkflowId already used is
 * refused with 400.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { FixtureWorkflow, type CallCache, type EngineSettings, type Submission } from './cromwell-fixture/run.js';

export type { FixtureWorkflow, Submission } from './cromwell-fixture/run.js';

export interface CromwellFixture {
  url: string;
  /** Every accepted submission, in order. */
  submissions: Submission[];
  /** Every request, as `METHOD /path?query`. */
  requests: string[];
  workflow(id: string): FixtureWorkflow | undefined;
  /** Ends running calls and the server. */
  close(): Promise<void>;
}

export interface CromwellFixtureOptions {
  /** Where workflows run (cromwell-executions). */
  root: string;
  /** Milliseconds a workflow stays Submitted before it runs. */
  startDelayMs?: number;
  /** Where it listens: default 127.0.0.1, on a free port. */
  host?: string;
  port?: number;
  /** call-caching.enabled: default false, as Cromwell's reference.conf. */
  callCaching?: boolean;
  /** workflow-options.workflow-log-dir: each workflow's log is <dir>/workflow.<id>.log; none: no workflow logs. */
  workflowLogDir?: string;
  /** workflow-options.workflow-log-temporary: default true (the log is deleted when the workflow ends, after its copy). */
  workflowLogTemporary?: boolean;
  /** Milliseconds between a log's copy to final_workflow_log_dir and `workflowLog` in the metadata: default 100. */
  workflowLogDelayMs?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KNOWN_PARTS = [
  'workflowSource',
  'workflowUrl',
  'workflowRoot',
  'workflowType',
  'workflowTypeVersion',
  'workflowInputs',
  'workflowOptions',
  'labels',
  'workflowDependencies',
  'workflowOnHold',
  'requestedWorkflowId',
];

class HttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly kind: 'fail' | 'error' = 'fail',
  ) {
    super(message);
  }
}

function send(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body, null, 2));
}

async function bodyOf(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function jsonPart(name: string, text: string | null, object: boolean): void {
  if (text === null) return;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, `Error(s): ${name} is not valid json. Error: ${(e as Error).message}.`);
  }
  if (object && (typeof v !== 'object' || v === null || Array.isArray(v)))
    throw new HttpError(400, `Error(s): ${name} must be a JSON object.`);
}

async function parseSubmission(req: http.IncomingMessage, known: Map<string, FixtureWorkflow>): Promise<Submission> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data'))
    throw new HttpError(415, "The request's Content-Type is not supported. Expected:\nmultipart/form-data");
  const form = await new Response(new Uint8Array(await bodyOf(req)), { headers: { 'content-type': type } }).formData();
  const fields = [...form.keys()];
  const unexpected = fields.filter((f) => !KNOWN_PARTS.includes(f) && !f.startsWith('workflowInputs_'));
  if (unexpected.length) throw new HttpError(400, `Error(s): ${unexpected.map((f) => `Unexpected body part name: ${f}`).join('\n')}`);
  const text = async (name: string) => {
    const v = form.get(name);
    return v === null ? null : typeof v === 'string' ? v : await v.text();
  };
  const workflowSource = await text('workflowSource');
  if (form.has('workflowUrl')) throw new HttpError(400, 'Error(s): the fixture does not fetch workflowUrl; send workflowSource');
  if (workflowSource === null) throw new HttpError(400, 'Error(s): workflowSource or workflowUrl needs to be supplied');
  const workflowInputs = await text('workflowInputs');
  const workflowOptions = await text('workflowOptions');
  const labels = await text('labels');
  jsonPart('workflowInputs', workflowInputs, true);
  jsonPart('workflowOptions', workflowOptions, true);
  jsonPart('labels', labels, true);
  const deps = form.get('workflowDependencies');
  const requested = await text('requestedWorkflowId');
  if (requested !== null && !UUID.test(requested))
    throw new HttpError(400, `Error(s): parse requested workflow ID as UUID: Invalid UUID string: ${requested}`);
  if (requested && known.has(requested.toLowerCase())) throw new HttpError(400, `Error(s): Workflow ID ${requested} is already in use`);
  return {
    id: (requested ?? crypto.randomUUID()).toLowerCase(),
    workflowSource,
    workflowInputs,
    workflowOptions,
    labels,
    workflowDependencies: deps === null ? null : typeof deps === 'string' ? Buffer.from(deps) : Buffer.from(await deps.arrayBuffer()),
    fields,
  };
}

/** Starts the fixture on 127.0.0.1, on a free port, unless told otherwise; rejects when it cannot listen there. */
export async function startCromwellFixture(options: CromwellFixtureOptions): Promise<CromwellFixture> {
  const workflows = new Map<string, FixtureWorkflow>();
  const submissions: Submission[] = [];
  const requests: string[] = [];
  const cache: CallCache = new Map();
  const settings: EngineSettings = {
    callCaching: options.callCaching ?? false,
    workflowLogDir: options.workflowLogDir ? path.resolve(options.workflowLogDir) : null,
    workflowLogTemporary: options.workflowLogTemporary ?? true,
    workflowLogDelayMs: options.workflowLogDelayMs ?? 100,
  };

  const workflowOf = (id: string): FixtureWorkflow => {
    if (!UUID.test(id)) throw new HttpError(400, `Invalid workflow ID: '${id}'.`);
    const wf = workflows.get(id.toLowerCase());
    if (!wf) throw new HttpError(404, `Unrecognized workflow ID: ${id}`);
    return wf;
  };

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const method = req.method ?? 'GET';
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const allow = (m: string) => {
      if (method !== m) throw new HttpError(405, `HTTP method not allowed, supported methods: ${m}`);
    };
    if (parts[0] === 'engine' && parts.length === 3 && parts[2] === 'version') return send(res, 200, { cromwell: 'fixture' });
    if (parts[0] === 'engine' && parts.length === 3 && parts[2] === 'status') return send(res, 200, {});
    if (parts[0] !== 'api' || parts[1] !== 'workflows' || !parts[2]) throw new HttpError(404, 'The requested resource could not be found.');
    if (parts.length === 3) {
      allow('POST');
      const submission = await parseSubmission(req, workflows);
      const wf = new FixtureWorkflow(submission, options.root, cache, settings);
      workflows.set(wf.id, wf);
      submissions.push(submission);
      setTimeout(() => void wf.run(), options.startDelayMs ?? 20).unref();
      return send(res, 201, { id: wf.id, status: 'Submitted' });
    }
    if (parts.length !== 5) throw new HttpError(404, 'The requested resource could not be found.');
    const [, , , id, action] = parts as [string, string, string, string, string];
    switch (action) {
      case 'status': {
        allow('GET');
        const wf = workflowOf(id);
        return send(res, 200, { id: wf.id, status: wf.status });
      }
      case 'abort': {
        allow('POST');
        if (!UUID.test(id)) throw new HttpError(400, `Invalid workflow ID: '${id}'.`);
        const status = workflows.get(id.toLowerCase())?.abort() ?? null;
        if (!status) throw new HttpError(404, `Couldn't abort ${id} because no workflow with that ID is in progress`, 'error');
        return send(res, 200, { id, status });
      }
      case 'outputs': {
        allow('GET');
        const wf = workflowOf(id);
        return send(res, 200, { id: wf.id, outputs: wf.outputs });
      }
      case 'logs':
        allow('GET');
        return send(res, 200, workflowOf(id).logs());
      case 'metadata':
        allow('GET');
        return send(res, 200, workflowOf(id).metadata(url.searchParams.getAll('includeKey')));
      default:
        throw new HttpError(404, 'The requested resource could not be found.');
    }
  }

  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    route(req, res).catch((e: unknown) => {
      if (e instanceof HttpError) {
        if (e.code === 404 && e.message.startsWith('The requested resource')) {
          res.writeHead(404, { 'content-type': 'text/plain; charset=UTF-8' });
          res.end(e.message);
        } else send(res, e.code, { status: e.kind, message: e.message });
      } else send(res, 500, { status: 'error', message: (e as Error).message });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    submissions,
    requests,
    workflow: (id) => workflows.get(id.toLowerCase()),
    close: () =>
      new Promise((resolve) => {
        for (const wf of workflows.values()) wf.kill();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
