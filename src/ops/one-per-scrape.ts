/**
 * A read that several gauges of one scrape share: a scrape collects every metric in one pass, so the
 * gauges after the first ask while its read is still out, and get the same answer.
 */
export function onePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let out: Promise<T> | undefined;
  return () => {
    if (!out) {
      out = read();
      void out.finally(() => { out = undefined; }).catch(() => undefined);
    }
    return out;
  };
}
