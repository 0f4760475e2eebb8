/**
 * GraphiQL's fetcher, run in the page. GraphiQL derives the operation name from the editor a few
 * hundred milliseconds after each edit, so a query replaced and run at once is sent with the name of
 * the one before it, and GraphiQL's own fetcher then fails with `Cannot infer operation ListPets`.
 * This one reads the operations from the text it sends: a name the document does not define is left
 * out, and the server picks the only operation or says clearly that a name is needed.
 *
 * Both functions are shipped to the browser as their source text, so they use nothing from outside.
 */

/** The names of a document's operations and how many it has (anonymous ones included), without a parser. */
export function operationsIn(query: string): { names: string[]; count: number } {
  // Comments and strings hold no definitions; block strings first, as they contain quotes.
  const code = query
    .replace(/"""[\s\S]*?(?:"""|$)/g, '""')
    .replace(/"(?:[^"\\\n]|\\.)*"?/g, '""')
    .replace(/#[^\n\r]*/g, '');
  const names: string[] = [];
  let count = 0;
  let depth = 0;
  const token = /[{}()]|[_A-Za-z][_0-9A-Za-z]*/g;
  let inDefinition = false;
  for (let match = token.exec(code); match; match = token.exec(code)) {
    const word = match[0];
    if (word === '{' || word === '(') {
      // A selection set at the top level, outside any definition, is an anonymous query.
      if (depth === 0 && word === '{' && !inDefinition) count += 1;
      depth += 1;
      continue;
    }
    if (word === '}' || word === ')') {
      depth = Math.max(0, depth - 1);
      if (depth === 0 && word === '}') inDefinition = false;
      continue;
    }
    if (depth > 0) continue;
    if (word === 'query' || word === 'mutation' || word === 'subscription') {
      count += 1;
      inDefinition = true;
      const next = token.exec(code);
      if (next && /^[_A-Za-z]/.test(next[0])) names.push(next[0]);
      else if (next) token.lastIndex = next.index; // `query {` or `query (`: read the brace again
    } else if (word === 'fragment') {
      inDefinition = true;
    }
  }
  return { names, count };
}

interface FetcherParams { query: string; variables?: unknown; operationName?: string | null }

/**
 * The fetcher GraphiQL is given: one POST of JSON, with the editor's headers. A subscription's answer is
 * a stream of Server-Sent Events: GraphiQL gets it as an async iterator of results, and ending it (the
 * stop button) closes the stream.
 */
export function graphiqlFetcher(endpoint: string, operations: typeof operationsIn) {
  return async (params: FetcherParams, options?: { headers?: Record<string, string> }) => {
    const { operationName, ...rest } = params;
    const keep = typeof operationName === 'string' && operations(params.query).names.includes(operationName);
    const response = await fetch(endpoint, {
      method: 'POST',
      credentials: 'same-origin',
      headers: {
        accept: 'application/graphql-response+json, application/json, text/event-stream',
        ...options?.headers,
        'content-type': 'application/json',
      },
      body: JSON.stringify(keep ? { ...rest, operationName } : rest),
    });
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) return response.json();
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    return (async function* events() {
      let buffer = '';
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = /^event: ?(.*)$/m.exec(block)?.[1];
            if (event === 'complete') return;
            const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n');
            if (event === 'next' && data) yield JSON.parse(data) as unknown;
          }
        }
      } finally {
        reader.cancel().catch(() => undefined);
      }
    })();
  };
}

/** The page's script that makes the fetcher: `window.animalStoreFetcher`. */
export function fetcherScript(endpoint: string): string {
  return `window.animalStoreFetcher = (${graphiqlFetcher.toString()})(${JSON.stringify(endpoint)}, ${operationsIn.toString()});`;
}
