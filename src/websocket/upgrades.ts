import { IncomingMessage, ServerResponse, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocketTransport } from './transport.js';

/**
 * Which upgrade requests are upgraded: a WebSocket on `path`, while the instance is not draining.
 * Anything else (`curl --http2`'s `Upgrade: h2c`, a WebSocket elsewhere) is the plain request it also is,
 * answered as it was before WebSockets were served. node:http takes this as `shouldUpgradeCallback`
 * (Node 22.21 and 24.9 on), and then hands every other request to the request listener itself.
 */
export function takesUpgrade(sockets: WebSocketTransport, path: string) {
  return (request: IncomingMessage): boolean =>
    request.headers.upgrade?.toLowerCase() === 'websocket' && pathOf(request.url) === path && !sockets.draining;
}

/**
 * node:http's `upgrade` listener. A Node without `shouldUpgradeCallback` (20) hands it every request
 * that asks for an upgrade, whatever the protocol: those not taken are answered here, by the request
 * listener, on a copy of the request that reads its body again.
 */
export function upgradeListener(handle: RequestListener, sockets: WebSocketTransport, path: string) {
  const takes = takesUpgrade(sockets, path);
  return (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (takes(request)) {
      sockets.upgrade(request, socket, head);
      return;
    }
    const plain = readableAgain(request, socket as Socket, head);
    // node:http's own deadlines no longer watch this socket: one that sends nothing more is dropped.
    (socket as Socket).setTimeout(UNTAKEN_UPGRADE_TIMEOUT_MS, () => socket.destroy());
    const response = new ServerResponse(plain);
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.once('finish', () => {
      response.detachSocket(socket as Socket);
      socket.end();
    });
    handle(plain, response);
  };
}

const pathOf = (url = '/') => url.split('?', 1)[0];

/** How long an upgrade request answered here may take to arrive whole and be answered. */
const UNTAKEN_UPGRADE_TIMEOUT_MS = 30_000;

/**
 * Node 20 ends an upgrade request's body stream before the listener sees it, and hands over what it had
 * read past the headers (`head`): a copy of the request reads its body (Content-Length bytes) from there
 * and the socket. A chunked body is not read (it arrives empty, and is refused as such).
 */
function readableAgain(request: IncomingMessage, socket: Socket, head: Buffer): IncomingMessage {
  const copy = new IncomingMessage(socket);
  Object.assign(copy, {
    method: request.method, url: request.url, headers: request.headers, rawHeaders: request.rawHeaders,
    httpVersion: request.httpVersion, httpVersionMajor: request.httpVersionMajor, httpVersionMinor: request.httpVersionMinor,
  });
  let remaining = Number(request.headers['content-length'] ?? 0) || 0;
  // Read whole: an IncomingMessage destroyed before it is `complete` takes its socket down with it.
  const end = () => {
    copy.complete = true;
    copy.push(null);
  };
  const take = (chunk: Buffer) => {
    const part = chunk.subarray(0, remaining);
    remaining -= part.length;
    if (part.length > 0) copy.push(part);
    if (remaining <= 0) {
      socket.off('data', take);
      end();
    }
  };
  if (remaining > 0) {
    socket.on('data', take);
    if (head.length > 0) take(head);
  } else {
    end();
  }
  return copy;
}
