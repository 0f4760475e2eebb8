import { randomUUID } from 'node:crypto';
import { writeRequestLine } from '../log.js';
import type { ServerContext } from '../pipeline/context.js';
import type { Step } from '../pipeline/pipeline.js';

const SAFE_ID = /^[\w.:-]{1,128}$/;

export interface RequestLogOptions {
  /** With traces on: the trace id of the request being answered, which its line then carries. */
  readonly traceId?: () => string | undefined;
  /**
   * ACCESS_LOG_SAMPLE: the share of answers below 400 that get a line, each carrying `sampled: <share>`;
   * 1 (the default): every request gets one.
   */
  readonly sample?: number;
}

/**
 * Gives each request an id (the caller's X-Request-Id when it is a sane token) that every log line of
 * the request carries and the response returns, and writes one line per request: method, path, route,
 * status, duration, the key's public prefix, and with traces on the trace id (chosen here, once, not
 * per request). Never the key, the Authorization header or a body.
 */
export function useRequestLog({ traceId, sample = 1 }: RequestLogOptions = {}): Step {
  const write = writer(traceId);
  // Chosen here, once: at the default the hook writes every line, with no draw and no test of the setting.
  const record = sample < 1 ? sampled(write, sample) : everyRequest(write);
  return {
    onRequest({ request, serverContext }) {
      const incoming = request.headers.get('x-request-id');
      serverContext.requestId = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    },
    onResponse({ request, response, serverContext }) {
      // Every response carries its id, whether or not its line is written.
      if (serverContext.requestId) response.headers.set('X-Request-Id', serverContext.requestId);
      record(request, response.status, serverContext);
    },
  };
}

interface Line {
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly route: string;
  readonly status: number;
  readonly durationMs: number;
  readonly keyPrefix: string | undefined;
  readonly client: string | undefined;
  /** `websocket` for an operation sent over a WebSocket (its method and path are /graphql's POST's). */
  readonly transport?: string;
  /** On a line kept by sampling: the share kept, so a log pipeline counts it as 1/sampled requests. */
  readonly sampled?: number;
}

/** Writes the line of one answered request, or decides not to. */
type Recorder = (request: Request, status: number, context: ServerContext) => void;
type Writer = (line: Line) => void;

function lineOf(request: Request, status: number, { requestId, startedAt, caller, address, pathname, route, via }: ServerContext): Line {
  return {
    requestId, method: request.method, path: pathname, route: route?.label ?? 'unmatched', status,
    durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
    keyPrefix: caller?.kind === 'key' ? caller.key.prefix : undefined, client: address,
    ...(via ? { transport: via.transport } : {}),
  };
}

const messageOf = (line: Line) => `${line.method} ${line.path} ${line.status}`;

function writer(traceId: RequestLogOptions['traceId']): Writer {
  return traceId
    ? (line) => writeRequestLine({ ...line, traceId: traceId() }, messageOf(line))
    : (line) => writeRequestLine(line, messageOf(line));
}

const everyRequest = (write: Writer): Recorder => (request, status, context) => write(lineOf(request, status, context));

/**
 * One answer below 400 in 1/share gets a line, marked with the share; every answer of 400 and above
 * gets one: sampling thins out the requests that went well, and never hides a failure, a refusal or a
 * client's mistake (401, 404, 429, 5xx), which are what an operator reads the log for.
 */
function sampled(write: Writer, share: number): Recorder {
  return (request, status, context) => {
    if (status >= 400) write(lineOf(request, status, context));
    else if (Math.random() < share) write({ ...lineOf(request, status, context), sampled: share });
  };
}
