/** One Server-Sent Event, its data parsed as JSON. */
export interface Sse {
  event: string;
  id?: string;
  data: any;
}

/** Reads a text/event-stream reply event by event. */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>).getReader();
  let buffer = '';
  return {
    async next(): Promise<Sse | null> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n').filter((l) => !l.startsWith(':'));
          if (!lines.length) continue;
          const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
          return { event: field('event')!, id: field('id'), data: JSON.parse(field('data')!) };
        }
        const { value, done } = await reader.read();
        if (done) return null;
        buffer += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}

type Reader = ReturnType<typeof sseReader>;

/** The log text read until it holds `marker`; the stream must not end first. */
export async function logUntil(sse: Reader, marker: string): Promise<string> {
  let text = '';
  while (!text.includes(marker)) {
    const e = await sse.next();
    if (!e || e.event === 'end') throw new Error(`the stream ended before the log held ${JSON.stringify(marker)}`);
    if (e.event === 'log') text += e.data.text;
  }
  return text;
}

/** The rest of a stream: its log text and its end event (null when it closed without one). */
export async function drain(sse: Reader): Promise<{ text: string; end: Sse | null }> {
  let text = '';
  let end: Sse | null = null;
  for (let e = await sse.next(); e; e = await sse.next()) {
    if (e.event === 'log') text += e.data.text;
    if (e.event === 'end') end = e;
  }
  return { text, end };
}
