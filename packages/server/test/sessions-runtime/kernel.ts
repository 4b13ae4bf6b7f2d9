import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';

/** A Jupyter kernel's channels, for tests: messages of the Jupyter messaging protocol 5.3 over its WebSocket. */

interface Message {
  header: { msg_id: string; msg_type: string };
  parent_header: { msg_id?: string };
  channel: string;
  content: Record<string, unknown>;
}

/** Runs code in the kernel through the WebSocket (Jupyter messaging protocol 5.3): its stdout, its result, its reply status. */
export function execute(
  ws: WebSocket,
  code: string,
  timeoutMs: number,
): Promise<{ stdout: string; result: string | null; status: string }> {
  const msgId = randomUUID();
  const session = randomUUID();
  return new Promise((resolve, reject) => {
    let stdout = '';
    let result: string | null = null;
    let status: string | null = null;
    let idle = false;
    const timer = setTimeout(() => {
      ws.off('message', onMessage);
      reject(new Error(`no complete answer to execute_request within ${timeoutMs} ms (stdout so far: ${JSON.stringify(stdout)})`));
    }, timeoutMs);
    const onMessage = (data: Buffer) => {
      const msg = JSON.parse(String(data)) as Message;
      if (msg.parent_header?.msg_id !== msgId) return;
      const type = msg.header.msg_type;
      if (type === 'stream' && msg.content.name === 'stdout') stdout += String(msg.content.text);
      if (type === 'execute_result') result = String((msg.content.data as Record<string, string>)['text/plain']);
      if (type === 'error') stdout += `ERROR ${String(msg.content.ename)}: ${String(msg.content.evalue)}\n`;
      if (type === 'execute_reply') status = String(msg.content.status);
      if (type === 'status' && msg.content.execution_state === 'idle') idle = true;
      // The reply (shell) and the idle status (iopub, after every output) may come in either order.
      if (status !== null && idle) {
        clearTimeout(timer);
        ws.off('message', onMessage);
        resolve({ stdout, result, status });
      }
    };
    ws.on('message', onMessage);
    ws.send(
      JSON.stringify({
        header: {
          msg_id: msgId,
          msg_type: 'execute_request',
          username: 'runyard-test',
          session,
          date: new Date().toISOString(),
          version: '5.3',
        },
        parent_header: {},
        metadata: {},
        content: { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: false, stop_on_error: true },
        channel: 'shell',
        buffers: [],
      }),
    );
  });
}

/** Opens a kernel's channels WebSocket (`<base>api/kernels/<id>/channels`) with the given headers (the proxy's cookie, an Origin). */
export async function openChannels(url: string, headers: Record<string, string>): Promise<WebSocket> {
  const ws = new WebSocket(url, { headers });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_q, r) => reject(new Error(`WebSocket refused: ${r.statusCode}`)));
  });
  return ws;
}
