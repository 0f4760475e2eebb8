import { connect, type Socket } from 'node:net';

export interface RawConnection {
  readonly socket: Socket;
  write(text: string): void;
  /** Everything the server sent, once it has closed the connection; and when that was. */
  readonly closed: Promise<{ text: string; afterMs: number }>;
}

/** A bare TCP connection to a test server, for what fetch cannot send: slow, broken or pipelined requests. */
export async function rawConnection(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const opened = performance.now();
  let text = '';
  socket.on('data', (chunk) => { text += chunk.toString(); });
  const closed = new Promise<{ text: string; afterMs: number }>((resolve) => {
    socket.once('close', () => resolve({ text, afterMs: performance.now() - opened }));
  });
  socket.on('error', () => {});
  return { socket, write: (chunk) => { if (!socket.destroyed) socket.write(chunk); }, closed };
}

const jsonOrText = (text: string): unknown => {
  try { return JSON.parse(text); } catch { return text; }
};

/** The status, headers and body (as JSON when it is JSON, and as text) of each HTTP/1.1 response in a raw reply, in order. */
export function parseResponses(text: string): { status: number; headers: Record<string, string>; text: string; body: any }[] {
  const responses = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    rest = rest.slice(end + 4);
    let body: string;
    if (headers['transfer-encoding'] === 'chunked') {
      body = '';
      for (let size = parseInt(rest, 16); size > 0; size = parseInt(rest, 16)) {
        const start = rest.indexOf('\r\n') + 2;
        body += rest.slice(start, start + size);
        rest = rest.slice(start + size + 2);
      }
      rest = rest.slice(rest.indexOf('\r\n\r\n') + 4);
    } else {
      // Without a length, the body runs to the end of the connection.
      const length = headers['content-length'] === undefined ? rest.length : Number(headers['content-length']);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, text: body, body: body ? jsonOrText(body) : undefined });
  }
  return responses;
}
