/**
 * A workflow as the Cromwell fixture runs it (see ../cromwell-fixture.ts): its status, its calls'
 * metadata as Cromwell's metadata endpoint shows it, and the run itself, one call after another,
 * each call's command under `bash -c` in `<root>/<workflow>/<id>/call-<call>/execution` with its
 * stdout, stderr and rc files, as Cromwell's Local backend lays them out.
 *
 * Its per-workflow log follows Cromwell's (core/.../logging/WorkflowLogger.scala): with
 * `workflow-options.workflow-log-dir` set, the workflow's lines go to `<dir>/workflow.<id>.log`
 * in the file appender's pattern `%date %-5level - %msg%n`, each message prefixed with its
 * logger's tag (`WorkflowExecutionActor-<id> [UUID(<first 8>)]: Starting hello.make`). At the
 * workflow's end (any terminal status), as WorkflowActor's transition and CopyWorkflowLogsActor
 * do: with the workflow option `final_workflow_log_dir`, the log says it is copied, is copied to
 * `<final_workflow_log_dir>/workflow.<id>.log` (its folders made, an existing file or link
 * there replaced, not followed: java.nio's Files.copy with REPLACE_EXISTING), then, once the copy
 * is acknowledged (workflowLogDelayMs later: Cromwell's IoActor and metadata service are
 * asynchronous), the metadata key `workflowLog` names the copy and the temporary log is deleted
 * (workflow-log-temporary, default true); without it, the log is deleted when temporary.
 *
 * Call caching follows core/src/main/resources/reference.conf and EngineJobExecutionActor: off
 * unless `call-caching.enabled` (callCaching); off, a call's metadata says
 * `callCaching: {effectiveCallCachingMode: "CallCachingOff", allowResultReuse: false}` and the
 * workflow options read_from_cache/write_to_cache change nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  closeSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { parseWdl, WdlSyntaxError, type Decl, type Document, type Expr, type Task } from './wdl.js';

export type Value = string | number | boolean | null | Value[];
export type WorkflowStatus = 'Submitted' | 'Running' | 'Aborting' | 'Aborted' | 'Failed' | 'Succeeded';

export interface Failure {
  message: string;
  causedBy: Failure[];
}

/** A call's metadata (one shard, one attempt: the fixture has neither scatters nor retries). */
export interface CallRecord {
  executionStatus: 'QueuedInCromwell' | 'Running' | 'Done' | 'Failed' | 'Aborted';
  stdout?: string;
  stderr?: string;
  callRoot: string;
  shardIndex: -1;
  attempt: 1;
  backend: 'Local';
  inputs: Record<string, Value>;
  outputs?: Record<string, Value>;
  returnCode?: number;
  jobId?: string;
  commandLine?: string;
  start: string;
  end?: string;
  /** hit and result only where the call read the cache (CallCachingActivity with read). */
  callCaching: { allowResultReuse: boolean; effectiveCallCachingMode: string; hit?: boolean; result?: string };
  failures?: Failure[];
}

/** What a POST /api/workflows/v1 carried. */
export interface Submission {
  id: string;
  workflowSource: string;
  workflowInputs: string | null;
  workflowOptions: string | null;
  labels: string | null;
  workflowDependencies: Buffer | null;
  /** The multipart field names, in order. */
  fields: string[];
}

/** What the server's configuration decides for every workflow (cromwell-fixture.ts CromwellFixtureOptions). */
export interface EngineSettings {
  /** call-caching.enabled (reference.conf: false). */
  callCaching: boolean;
  /** workflow-options.workflow-log-dir, absolute; null: no per-workflow logs. */
  workflowLogDir: string | null;
  /** workflow-options.workflow-log-temporary (reference.conf: true). */
  workflowLogTemporary: boolean;
  /** Milliseconds between the copy of the log to final_workflow_log_dir and `workflowLog` in the metadata. */
  workflowLogDelayMs: number;
}

/** Successful calls by hash (task text, inputs, input files' contents): the server's call cache. */
export type CallCache = Map<string, { workflowId: string; fqn: string; callRoot: string; outputs: Record<string, Value> }>;

const now = () => new Date().toISOString();

/** logback's %date: `2026-12-07 10:00:00,123`, local time. */
function logbackDate(d = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())},${p(d.getMilliseconds(), 3)}`;
}

class CallFailed extends Error {}
class Aborted extends Error {}

/** WDL's read_string: the file's text without its trailing newlines. */
function readString(file: string): string {
  return readFileSync(file, 'utf8').replace(/\n+$/, '');
}

function render(v: Value): string {
  if (v === null) return '';
  return Array.isArray(v) ? v.map(render).join(' ') : String(v);
}

/** Command text without the whitespace its lines have in common (WDL strips it). */
function dedent(text: string): string {
  const lines = text
    .replace(/^\s*\n/, '')
    .replace(/\n\s*$/, '')
    .split('\n');
  const indents = lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)![0].length);
  const common = indents.length ? Math.min(...indents) : 0;
  return `${lines.map((l) => l.slice(common)).join('\n')}\n`;
}

export class FixtureWorkflow {
  status: WorkflowStatus = 'Submitted';
  name = '';
  readonly submission = now();
  start?: string;
  end?: string;
  inputs: Record<string, Value> = {};
  outputs: Record<string, Value> = {};
  failures: Failure[] = [];
  readonly calls: Record<string, CallRecord[]> = {};
  workflowRoot = '';
  /** Metadata `workflowLog`: where the log was copied (final_workflow_log_dir), once Cromwell says so. */
  workflowLog?: string;
  private child: ChildProcess | null = null;
  private aborting = false;
  private readonly options: { read_from_cache?: boolean; write_to_cache?: boolean; final_workflow_log_dir?: string };
  private readonly labels: Record<string, string>;

  constructor(
    readonly submitted: Submission,
    private readonly root: string,
    private readonly cache: CallCache,
    private readonly settings: EngineSettings,
  ) {
    this.options = submitted.workflowOptions ? JSON.parse(submitted.workflowOptions) : {};
    this.labels = submitted.labels ? JSON.parse(submitted.labels) : {};
  }

  get id(): string {
    return this.submitted.id;
  }

  /** MaterializeWorkflowDescriptorActor's mode: off unless call-caching.enabled; the options default to true. */
  private get caching(): { read: boolean; write: boolean; mode: string } {
    const read = this.settings.callCaching && this.options.read_from_cache !== false;
    const write = this.settings.callCaching && this.options.write_to_cache !== false;
    return { read, write, mode: read && write ? 'ReadAndWriteCache' : read ? 'ReadCache' : write ? 'WriteCache' : 'CallCachingOff' };
  }

  /** workflow.<id>.log in the workflow log directory; null without one. */
  private get logFile(): string | null {
    return this.settings.workflowLogDir && path.join(this.settings.workflowLogDir, `workflow.${this.id}.log`);
  }

  /** A line of the workflow's log, as WorkflowLogger's file appender writes it. */
  private log(logger: string, message: string, level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' = 'INFO'): void {
    const file = this.logFile;
    if (!file) return;
    mkdirSync(path.dirname(file), { recursive: true });
    appendFileSync(file, `${logbackDate()} ${level.padEnd(5)} - ${logger}: ${message}\n`);
  }

  /** A workflow logger's tag: `<logger> [UUID(<first 8>)]`. */
  private tag(logger: string): string {
    return `${logger} [UUID(${this.id.slice(0, 8)})]`;
  }

  private get executionActor(): string {
    return this.tag(`WorkflowExecutionActor-${this.id}`);
  }

  /** A job logger's tag (JobLogger): `<actor> [UUID(<first 8>)<fqn>:NA:1]`. */
  private jobTag(fqn: string): string {
    return `BackgroundConfigAsyncJobExecutionActor [UUID(${this.id.slice(0, 8)})${fqn}:NA:1]`;
  }

  /** GET .../metadata, with includeKey applied to the workflow's keys and each call's. */
  metadata(includeKeys: string[] = []): Record<string, unknown> {
    const md: Record<string, unknown> = {
      id: this.id,
      workflowName: this.name || undefined,
      status: this.status,
      submission: this.submission,
      start: this.start,
      end: this.end,
      actualWorkflowLanguage: 'WDL',
      actualWorkflowLanguageVersion: '1.0',
      submittedFiles: {
        workflow: this.submitted.workflowSource,
        inputs: this.submitted.workflowInputs ?? '{}',
        options: this.submitted.workflowOptions ?? '{}',
        labels: this.submitted.labels ?? '{}',
        workflowUrl: '',
        root: '',
      },
      workflowRoot: this.workflowRoot || undefined,
      inputs: this.inputs,
      outputs: this.outputs,
      labels: { ...this.labels, 'cromwell-workflow-id': `cromwell-${this.id}` },
      calls: this.calls,
      ...(this.failures.length ? { failures: this.failures } : {}),
      ...(this.workflowLog ? { workflowLog: this.workflowLog } : {}),
    };
    const json = JSON.parse(JSON.stringify(md)) as Record<string, unknown>;
    if (!includeKeys.length) return json;
    const keep = (k: string) => includeKeys.some((i) => k.startsWith(i));
    const out: Record<string, unknown> = { id: this.id };
    for (const [k, v] of Object.entries(json)) if (k !== 'calls' && keep(k)) out[k] = v;
    out.calls = Object.fromEntries(
      Object.entries(json.calls as Record<string, Record<string, unknown>[]>).map(([fqn, runs]) => [
        fqn,
        runs.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => keep(k) || k === 'shardIndex' || k === 'attempt'))),
      ]),
    );
    return out;
  }

  /** GET .../logs: each call's stdout and stderr paths. */
  logs(): Record<string, unknown> {
    const calls = Object.fromEntries(
      Object.entries(this.calls).map(([fqn, runs]) => [
        fqn,
        runs.filter((r) => r.stdout).map((r) => ({ stdout: r.stdout, stderr: r.stderr, shardIndex: r.shardIndex, attempt: r.attempt })),
      ]),
    );
    return { id: this.id, calls };
  }

  /** POST .../abort: the status it answers, or null when the workflow is no longer in progress. */
  abort(): WorkflowStatus | null {
    if (this.status === 'Submitted') {
      this.status = 'Aborted';
      this.end = now();
      return 'Aborted';
    }
    if (this.status !== 'Running') return this.status === 'Aborting' ? 'Aborting' : null;
    this.log(this.executionActor, 'Aborting workflow');
    this.status = 'Aborting';
    this.aborting = true;
    const child = this.child;
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
      setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      }, 2000).unref();
    }
    return 'Aborting';
  }

  /** The whole run: Submitted → Running → Succeeded, Failed or Aborted. */
  async run(): Promise<void> {
    if (this.status !== 'Submitted') return;
    this.status = 'Running';
    this.start = now();
    this.log('WorkflowManagerActor', `Starting workflow UUID(${this.id})`);
    let doc: Document;
    try {
      doc = parseWdl(this.submitted.workflowSource);
      this.log(this.tag('MaterializeWorkflowDescriptorActor'), 'Parsing workflow as WDL 1.0');
      this.name = doc.workflow.name;
      const calls = doc.workflow.body.flatMap((step) => (step.kind === 'call' ? [`${this.name}.${step.call.alias} -> Local`] : []));
      this.log(this.tag('MaterializeWorkflowDescriptorActor'), `Call-to-Backend assignments: ${calls.join(', ')}`);
      this.workflowRoot = path.join(this.root, this.name, this.id);
      mkdirSync(this.workflowRoot, { recursive: true });
      this.inputs = this.workflowInputs(doc);
    } catch (e) {
      const message = e instanceof WdlSyntaxError ? `Workflow input processing failed: ${e.message}` : (e as Error).message;
      return this.finish('Failed', [{ message: 'Workflow input processing failed', causedBy: [{ message, causedBy: [] }] }]);
    }
    try {
      const env = new Map<string, Value>(Object.entries(this.inputs).map(([k, v]) => [k.slice(this.name.length + 1), v]));
      const callOutputs = new Map<string, Record<string, Value>>();
      const lookup = (p: string[]) => {
        if (p.length === 1 && env.has(p[0]!)) return env.get(p[0]!)!;
        const out = p.length === 2 ? callOutputs.get(p[0]!)?.[p[1]!] : undefined;
        if (out === undefined) throw new CallFailed(`Cannot lookup value '${p.join('.')}'`);
        return out;
      };
      for (const step of doc.workflow.body) {
        if (step.kind === 'decl') env.set(step.decl.name, this.evaluate(step.decl.expr!, lookup, null));
        else {
          const task = doc.tasks.get(step.call.task);
          if (!task) throw new CallFailed(`Failed to process task definition '${step.call.task}' (no such task)`);
          const inputs = Object.fromEntries(step.call.inputs.map((i) => [i.name, this.evaluate(i.expr, lookup, null)]));
          callOutputs.set(step.call.alias, await this.call(task, step.call.alias, inputs));
        }
      }
      for (const o of doc.workflow.outputs) this.outputs[`${this.name}.${o.name}`] = this.evaluate(o.expr!, lookup, null);
      this.log(this.executionActor, `Workflow ${this.name} complete. Final Outputs:\n${JSON.stringify(this.outputs, null, 2)}`);
      this.finish('Succeeded');
    } catch (e) {
      if (e instanceof Aborted || this.aborting) return this.finish('Aborted');
      const failure = { message: (e as Error).message, causedBy: [] };
      this.finish('Failed', [{ message: 'Workflow failed', causedBy: [failure] }]);
    }
  }

  private finish(status: WorkflowStatus, failures: Failure[] = []): void {
    // WorkflowActor's last transition (the failures themselves are in the metadata and the server's log).
    const from = status === 'Aborted' ? 'WorkflowAbortingState' : 'FinalizingWorkflowState';
    this.log(this.tag(`WorkflowActor-${this.id}`), `transition from ${from} to Workflow${status}State. Stopping self.`, 'DEBUG');
    this.status = status;
    this.failures = failures;
    this.end = now();
    this.finishLog();
  }

  /** WorkflowActor's end: the log copied to final_workflow_log_dir (CopyWorkflowLogsActor), or deleted when temporary. */
  private finishLog(): void {
    const src = this.logFile;
    if (!src || !existsSync(src)) return;
    const finalDir = this.options.final_workflow_log_dir;
    if (!finalDir) {
      if (this.settings.workflowLogTemporary) rmSync(src, { force: true });
      return;
    }
    const dest = path.join(finalDir, path.basename(src));
    this.log(this.tag('CopyWorkflowLogsActor'), `Copying workflow logs from ${src} to ${dest}`);
    try {
      // NioFlow.copy: the folders made, then Files.copy(REPLACE_EXISTING), which replaces a link there rather than follow it.
      mkdirSync(finalDir, { recursive: true });
      rmSync(dest, { force: true });
      copyFileSync(src, dest, constants.COPYFILE_EXCL);
    } catch (e) {
      // IoFailAck: "Could not copy workflow logs" among the workflow's failures, and no workflowLog.
      this.failures.push({ message: 'Could not copy workflow logs', causedBy: [{ message: (e as Error).message, causedBy: [] }] });
      if (this.settings.workflowLogTemporary) rmSync(src, { force: true });
      return;
    }
    // IoSuccess, later: the metadata names the copy, then the temporary log is deleted.
    setTimeout(() => {
      this.workflowLog = dest;
      if (this.settings.workflowLogTemporary) rmSync(src, { force: true });
    }, this.settings.workflowLogDelayMs).unref();
  }

  /** The workflow's inputs from the inputs JSON, with defaults; a required one missing fails it. */
  private workflowInputs(doc: Document): Record<string, Value> {
    const given = JSON.parse(this.submitted.workflowInputs || '{}') as Record<string, Value>;
    const out: Record<string, Value> = {};
    const env = new Map<string, Value>();
    for (const d of doc.workflow.inputs) {
      const key = `${doc.workflow.name}.${d.name}`;
      let v: Value | undefined = given[key];
      if (v === undefined && d.expr) v = this.evaluate(d.expr, (p) => env.get(p.join('.')) ?? null, null);
      if (v === undefined && !d.optional) throw new Error(`Required workflow input '${key}' not specified`);
      env.set(d.name, v ?? null);
      out[key] = v ?? null;
    }
    return out;
  }

  private evaluate(e: Expr, lookup: (path: string[]) => Value, execDir: string | null): Value {
    const ev = (x: Expr) => this.evaluate(x, lookup, execDir);
    switch (e.k) {
      case 'lit':
        return e.v;
      case 'str':
        return e.parts.map((p) => (typeof p === 'string' ? p : render(ev(p)))).join('');
      case 'ref':
        return lookup(e.path);
      case 'array':
        return e.items.map(ev);
      case 'add': {
        const a = ev(e.a);
        const b = ev(e.b);
        return typeof a === 'number' && typeof b === 'number' ? a + b : render(a) + render(b);
      }
      case 'fn': {
        const args = e.args.map(ev);
        const file = (v: Value) => (execDir ? path.resolve(execDir, String(v)) : String(v));
        switch (e.name) {
          case 'stdout':
          case 'stderr':
            if (!execDir) throw new CallFailed(`${e.name}() is only valid in a task's outputs`);
            return path.join(execDir, e.name);
          case 'read_string':
            return readString(file(args[0]!));
          case 'read_int':
            return parseInt(readString(file(args[0]!)), 10);
          case 'read_float':
            return parseFloat(readString(file(args[0]!)));
          case 'read_boolean':
            return readString(file(args[0]!)).trim().toLowerCase() === 'true';
          case 'read_lines':
            return readString(file(args[0]!)).split('\n');
          case 'basename':
            return path.basename(String(args[0]));
          case 'sep':
            return (Array.isArray(args[1]) ? args[1] : [args[1]!]).map(render).join(String(args[0]));
          default:
            throw new CallFailed(`Function ${e.name}() is not supported by the fixture`);
        }
      }
    }
  }

  /** Runs one call (or takes it from the call cache): its outputs. */
  private async call(task: Task, alias: string, given: Record<string, Value>): Promise<Record<string, Value>> {
    if (this.aborting) throw new Aborted();
    const fqn = `${this.name}.${alias}`;
    const callRoot = path.join(this.workflowRoot, `call-${alias}`);
    const record: CallRecord = {
      executionStatus: 'QueuedInCromwell',
      callRoot,
      shardIndex: -1,
      attempt: 1,
      backend: 'Local',
      inputs: {},
      start: now(),
      callCaching: { allowResultReuse: this.caching.write, effectiveCallCachingMode: this.caching.mode },
    };
    this.log(this.executionActor, `Starting ${fqn}`);
    this.calls[fqn] = [record];
    const fail = (message: string): never => {
      record.executionStatus = 'Failed';
      record.failures = [{ message, causedBy: [] }];
      record.end = now();
      throw new CallFailed(message);
    };
    // Inputs: the call's, else the inputs JSON's `<workflow>.<call>.<input>`, else the default.
    const env = new Map<string, Value>();
    const json = JSON.parse(this.submitted.workflowInputs || '{}') as Record<string, Value>;
    const local = (p: string[]) => {
      if (p.length === 1 && env.has(p[0]!)) return env.get(p[0]!)!;
      return fail(`Cannot lookup value '${p.join('.')}' in task ${task.name}`);
    };
    for (const d of task.inputs) {
      let v: Value | undefined = d.name in given ? given[d.name] : json[`${fqn}.${d.name}`];
      if (v === undefined && d.expr) v = this.evaluate(d.expr, local, null);
      if (v === undefined && !d.optional) fail(`Required input '${d.name}' of call ${fqn} was not given`);
      env.set(d.name, v ?? null);
    }
    record.inputs = Object.fromEntries(env);
    for (const d of task.privates) env.set(d.name, this.evaluate(d.expr!, local, null));

    const hash = this.hashOf(task, task.inputs, env);
    const cached = this.caching.read ? this.cache.get(hash) : undefined;
    if (this.caching.read && !cached) record.callCaching = { ...record.callCaching, hit: false, result: 'Cache Miss' };
    const execDir = path.join(callRoot, cached ? 'cacheCopy' : '', 'execution');
    mkdirSync(execDir, { recursive: true });
    record.stdout = path.join(execDir, 'stdout');
    record.stderr = path.join(execDir, 'stderr');
    if (cached) {
      // Cromwell copies the cached call's results into this call's directory.
      const from = path.join(cached.callRoot, 'execution');
      cpSync(from, execDir, { recursive: true });
      const moved = (v: Value): Value =>
        typeof v === 'string' && v.startsWith(from + path.sep)
          ? path.join(execDir, v.slice(from.length + 1))
          : Array.isArray(v)
            ? v.map(moved)
            : v;
      record.outputs = Object.fromEntries(Object.entries(cached.outputs).map(([k, v]) => [k, moved(v)]));
      record.callCaching = { ...record.callCaching, hit: true, result: `Cache Hit: ${cached.workflowId}:${cached.fqn}:-1` };
      record.returnCode = 0;
      record.executionStatus = 'Done';
      record.end = now();
      this.log(this.executionActor, 'Call cache hit process had 0 total hit failures before completing successfully');
      this.log(this.executionActor, `Job results retrieved (CallCached): '${fqn}' (scatter index: None, attempt 1)`);
      return record.outputs;
    }

    const command = dedent(task.command.map((p) => (typeof p === 'string' ? p : render(this.evaluate(p, local, null)))).join(''));
    record.commandLine = command;
    writeFileSync(path.join(execDir, 'script'), command);
    record.executionStatus = 'Running';
    this.log(this.jobTag(fqn), `\`${command.trim().split('\n')[0]}\``);
    const rc = await this.execute(command, execDir, record, fqn);
    this.log(this.jobTag(fqn), `Status change from WaitingForReturnCode to Done`);
    writeFileSync(path.join(execDir, 'rc'), `${rc}\n`);
    if (this.aborting) {
      record.executionStatus = 'Aborted';
      record.end = now();
      throw new Aborted();
    }
    record.returnCode = rc;
    if (rc !== 0)
      fail(
        `Job ${fqn}:NA:1 exited with return code ${rc} which has not been declared as a valid return code. See 'continueOnReturnCode' runtime attribute for more details.`,
      );

    const outputs: Record<string, Value> = {};
    for (const o of task.outputs) {
      try {
        let v = this.evaluate(o.expr!, local, execDir);
        if (o.type === 'File') {
          v = path.resolve(execDir, String(v));
          if (!existsSync(v)) throw new Error(`Could not process output, file not found: ${v}`);
        }
        outputs[o.name] = v;
        env.set(o.name, v);
      } catch (e) {
        fail(`Failed to evaluate job outputs:\nBad output '${alias}.${o.name}': ${(e as Error).message}`);
      }
    }
    record.outputs = outputs;
    record.executionStatus = 'Done';
    record.end = now();
    if (this.caching.write) this.cache.set(hash, { workflowId: this.id, fqn, callRoot, outputs });
    return outputs;
  }

  /** The call's cache hash: the task's text and its inputs, a File input by its content. */
  private hashOf(task: Task, inputs: Decl[], env: Map<string, Value>): string {
    const h = createHash('sha256').update(task.source);
    for (const d of inputs) {
      const v = env.get(d.name) ?? null;
      const isFile = d.type === 'File' && typeof v === 'string' && existsSync(v);
      h.update(
        `\0${d.name}=${
          isFile
            ? createHash('sha256')
                .update(readFileSync(v as string))
                .digest('hex')
            : JSON.stringify(v)
        }`,
      );
    }
    return h.digest('hex');
  }

  private execute(command: string, execDir: string, record: CallRecord, fqn: string): Promise<number> {
    const out = openSync(path.join(execDir, 'stdout'), 'w');
    const err = openSync(path.join(execDir, 'stderr'), 'w');
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', command], { cwd: execDir, stdio: ['ignore', out, err], detached: true });
      this.child = child;
      record.jobId = String(child.pid);
      this.log(this.jobTag(fqn), `job id: ${child.pid}`);
      this.log(this.jobTag(fqn), 'Status change from - to WaitingForReturnCode');
      let ended = false;
      const done = (rc: number) => {
        if (ended) return;
        ended = true;
        closeSync(out);
        closeSync(err);
        this.child = null;
        resolve(rc);
      };
      child.on('error', () => done(127));
      child.on('exit', (code, signal) => done(code ?? (signal ? 128 + 15 : 1)));
    });
  }

  /** Ends what runs (the fixture closes). */
  kill(): void {
    if (this.child?.pid) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}
