import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { STATUS, type ErrorCode } from '../errors.js';
import { log } from '../log.js';

/** What Node's HTTP parser reports, as the codes of our error table. */
function classify(code: string | undefined): { code: ErrorCode; message: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', message: 'The request was not received in time; send it whole, without pauses' };
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE', message: 'The request line and headers are too large' };
    default:
      return { code: 'BAD_REQUEST', message: 'The request is not valid HTTP' };
  }
}

/**
 * A request the HTTP parser refused (malformed, too slow, headers too large) never reaches the
 * pipeline: it gets the Error body here, with a request id in the response and the log, and the
 * connection is closed, as Node itself would close it.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const { code, message } = classify(error.code);
  const status = STATUS[code];
  const requestId = randomUUID();
  const body = JSON.stringify({ code, message, status });
  log.info({ requestId, status, parserError: error.code, client: socket.remoteAddress }, `refused by the HTTP parser: ${code}`);
  socket.end([
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    `X-Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    'Referrer-Policy: no-referrer',
    'Cache-Control: no-store',
    '',
    body,
  ].join('\r\n'));
}
