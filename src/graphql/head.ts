import type { Plugin } from 'graphql-yoga';

/**
 * HEAD /graphql runs as its GET (yoga parses only GET and POST): these are the GET requests made for a
 * HEAD, so a subscription among them is answered with its stream's status and headers, never subscribed.
 */
const heads = new WeakSet<Request>();

/** The HEAD request as the GET it stands for: the same URL and headers. */
export function asGet(request: Request, RequestClass: typeof Request): Request {
  const get = new RequestClass(request.url, { method: 'GET', headers: request.headers });
  heads.add(get);
  return get;
}

/** A HEAD's subscription ends before its first event: the response keeps the stream's headers, and no resolver subscribes. */
export function useHeadWithoutStream(): Plugin {
  return {
    onSubscribe({ args, setSubscribeFn }) {
      const { request } = args.contextValue as { request?: Request };
      if (request && heads.has(request)) setSubscribeFn((async function* nothing() {}) as never);
    },
  };
}
