/** Cromwell's REST API (/api/workflows/v1), the part the driver uses; shapes as in Cromwell's swagger (cromwell.yaml). */

export const TERMINAL = new Set(['Succeeded', 'Failed', 'Aborted']);

export interface Failure {
  message?: string;
  causedBy?: Failure[];
}

/** One run of a call (a shard, an attempt) in the metadata's `calls`. */
export interface CallMetadata {
  executionStatus?: string;
  stdout?: string;
  stderr?: string;
  shardIndex?: number;
  attempt?: number;
  returnCode?: number;
  failures?: Failure[];
  callCaching?: { hit?: boolean; result?: string };
  subWorkflowMetadata?: WorkflowMetadata;
}

export interface WorkflowMetadata {
  id?: string;
  status?: string;
  workflowName?: string;
  workflowRoot?: string;
  /** Where Cromwell copied the workflow's log (final_workflow_log_dir), once it has (CopyWorkflowLogsActor). */
  workflowLog?: string;
  calls?: Record<string, CallMetadata[]>;
  failures?: Failure[];
}

/** What Cromwell answered, or that it could not be reached (status null). */
export class CromwellError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** The text of an error answer: Cromwell's `{"status": "fail", "message", "errors"}`, else the body. */
function answerText(body: string): string {
  try {
    const json = JSON.parse(body) as { message?: unknown; errors?: unknown };
    const errors = Array.isArray(json.errors) ? json.errors.map(String) : [];
    if (typeof json.message === 'string') return [json.message, ...errors].join(' ');
  } catch {
    // Not JSON: the body as it is.
  }
  return body.trim().slice(0, 500) || '(no body)';
}

function causeOf(e: unknown): string {
  const err = e as Error & { cause?: { message?: string; code?: string } };
  if (err.name === 'TimeoutError') return 'it did not answer in time';
  return err.cause?.message ?? err.cause?.code ?? err.message;
}

const API = '/api/workflows/v1';

/** A client of one Cromwell server. Credentials in its URL are sent as Basic authentication and never shown. */
export class CromwellClient {
  /** The server as messages name it (without credentials). */
  readonly where: string;
  private readonly headers: Record<string, string> = {};

  constructor(
    url: string,
    private readonly timeoutMs = 60_000,
  ) {
    const u = new URL(url);
    if (u.username || u.password) {
      const user = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
      u.username = '';
      u.password = '';
    }
    this.where = u.href.replace(/\/+$/, '');
  }

  private async call<T>(method: 'GET' | 'POST', route: string, body?: FormData): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.where + route, { method, body, headers: this.headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (e) {
      throw new CromwellError(`Cromwell at ${this.where} could not be reached (${method} ${route}): ${causeOf(e)}.`, null);
    }
    const text = await res.text();
    if (!res.ok)
      throw new CromwellError(
        `Cromwell at ${this.where} answered ${res.status} ${res.statusText} to ${method} ${route}: ${answerText(text)}`,
        res.status,
      );
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CromwellError(
        `Cromwell at ${this.where} answered ${method} ${route} with something else than JSON: ${text.slice(0, 200)}`,
        res.status,
      );
    }
  }

  submit(form: FormData): Promise<{ id: string; status: string }> {
    return this.call('POST', API, form);
  }

  async status(id: string): Promise<string> {
    return (await this.call<{ status: string }>('GET', `${API}/${encodeURIComponent(id)}/status`)).status;
  }

  abort(id: string): Promise<{ id: string; status: string }> {
    return this.call('POST', `${API}/${encodeURIComponent(id)}/abort`);
  }

  /** Metadata, with sub-workflows' inside their calls; includeKey narrows it (the call statuses of the progress lines). */
  metadata(id: string, includeKeys: string[] = []): Promise<WorkflowMetadata> {
    const query = new URLSearchParams([['expandSubWorkflows', 'true'], ...includeKeys.map((k) => ['includeKey', k])]);
    return this.call('GET', `${API}/${encodeURIComponent(id)}/metadata?${query}`);
  }

  outputs(id: string): Promise<{ id: string; outputs: Record<string, unknown> }> {
    return this.call('GET', `${API}/${encodeURIComponent(id)}/outputs`);
  }

  logs(id: string): Promise<{ id: string; calls?: Record<string, CallMetadata[]> }> {
    return this.call('GET', `${API}/${encodeURIComponent(id)}/logs`);
  }
}
