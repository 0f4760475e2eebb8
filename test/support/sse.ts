/** A GraphQL subscription over Server-Sent Events, as a browser's EventSource or a frontend client opens it. */
export interface EventStream {
  readonly status: number;
  readonly headers: Headers;
  /**
   * The stream was opened: it began with the comment that opens an accepted stream. A subscription refused
   * before it streams is a 200 stream too, for the sake of EventSource, but begins with its error event.
   */
  readonly opened: boolean;
  /** The body of a refused subscription (not a stream). */
  readonly body?: any;
  /** The next `next` event's payload; rejects after `ms`, or when the stream ends first. */
  next(ms?: number): Promise<any>;
  /** The SSE `id` of each `next` event read so far, in order (undefined for one without). */
  readonly ids: (string | undefined)[];
  /** When each of `ids` arrived (ms since the epoch). */
  readonly times: number[];
  /** Resolves when the server ends the stream (a `complete` event, or the end of the body). */
  readonly ended: Promise<'complete' | 'closed'>;
  close(): void;
}

/** `keepPayloads: false` keeps only the ids and their times: a long-lived reader that never calls `next`. */
export async function subscribe(
  url: string, query: string, headers: Record<string, string>, variables?: object, { keepPayloads = true } = {},
): Promise<EventStream> {
  const controller = new AbortController();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { ...headers, accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await response.text();
    return {
      status: response.status, headers: response.headers, opened: false, body: text ? JSON.parse(text) : undefined,
      next: () => Promise.reject(new Error('not a stream')), ids: [], times: [], ended: Promise.resolve('closed'), close() {},
    };
  }
  const queue: any[] = [];
  const received: (string | undefined)[] = [];
  const times: number[] = [];
  const waiting: ((value: any) => void)[] = [];
  let endedWith: 'complete' | 'closed' | undefined;
  let markEnded!: (how: 'complete' | 'closed') => void;
  const ended = new Promise<'complete' | 'closed'>((resolve) => { markEnded = (how) => { endedWith ??= how; resolve(endedWith); }; });
  let began!: (text: string) => void;
  const beginning = new Promise<string>((resolve) => { began = resolve; });
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        began(buffer);
        let boundary;
        while ((boundary = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
          if (event === 'complete') markEnded('complete');
          else if (event === 'next' && data) {
            received.push(/^id: (.*)$/m.exec(block)?.[1]);
            times.push(Date.now());
            if (!keepPayloads) continue;
            const payload = JSON.parse(data);
            const waiter = waiting.shift();
            if (waiter) waiter(payload);
            else queue.push(payload);
          }
        }
      }
    } catch { /* aborted by close() */ }
    began('');
    markEnded('closed');
  })();
  const opened = (await beginning).startsWith(':');
  return {
    status: response.status,
    headers: response.headers,
    opened,
    ended,
    ids: received,
    times,
    next(ms = 2_000) {
      if (queue.length) return Promise.resolve(queue.shift());
      return new Promise((resolve, reject) => {
        // A reader that gave up is forgotten: the next event goes to the next reader, not to it.
        const timer = setTimeout(() => { waiting.splice(waiting.indexOf(waiter), 1); reject(new Error(`no event within ${ms} ms`)); }, ms);
        const waiter = (value: any) => { clearTimeout(timer); resolve(value); };
        waiting.push(waiter);
        void ended.then(() => { clearTimeout(timer); if (waiting.includes(waiter)) reject(new Error('the stream ended')); });
      });
    },
    close: () => controller.abort(),
  };
}

/**
 * A /graphql answer that is an event stream, read as far as it tells whether the stream was opened: an
 * accepted stream (it begins with a comment) is cancelled, undefined; a refusal is read whole, and given
 * back as the answer it stands for: its errors' body, in the status of the most severe.
 */
export async function streamRefusal(response: Response): Promise<{ status: number; text: string } | undefined> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (value) text += decoder.decode(value, { stream: true });
    if (text.startsWith(':')) { await reader.cancel(); return undefined; }
    if (done) break;
  }
  const data = /^event: next\ndata: (.*)$/m.exec(text)?.[1];
  if (!data || !text.endsWith('event: complete\ndata:\n\n')) throw new Error(`neither a stream nor a refusal: ${text.slice(0, 300)}`);
  const { errors } = JSON.parse(data) as { errors: { extensions: { status: number } }[] };
  return { status: Math.max(...errors.map((error) => error.extensions.status)), text: data };
}
