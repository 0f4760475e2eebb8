/**
 * The client's address: the socket's, or, behind `hops` trusted proxies, the X-Forwarded-For entry the
 * outermost of them appended. Entries further left are whatever the client claimed, and are ignored.
 */
export function clientAddress(remoteAddress: string | undefined, request: Request, hops: number): string {
  const socket = normalize(remoteAddress ?? 'unknown');
  if (hops === 0) return socket;
  const forwarded = (request.headers.get('x-forwarded-for') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const entry = forwarded[forwarded.length - hops];
  return entry ? normalize(entry) : socket;
}

function normalize(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
