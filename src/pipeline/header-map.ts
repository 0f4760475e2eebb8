/**
 * A response's headers in a Map by lower-cased name: the Fetch API's Headers as far as the pipeline uses
 * them (set, get, has, delete, append, iteration), without its Web IDL layer, and written to node:http
 * as they are (`flat`). Names iterate in the order they were set.
 */
export class HeaderMap implements Headers {
  readonly #map = new Map<string, string>();

  constructor(init?: HeadersInit | null) {
    if (!init) return;
    if (Array.isArray(init)) for (const [name, value] of init) this.append(name!, value!);
    else if (typeof (init as Headers).forEach === 'function') (init as Headers).forEach((value, name) => this.append(name, value));
    else for (const name of Object.keys(init)) this.append(name, (init as Record<string, string>)[name]!);
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const had = this.#map.get(key);
    this.#map.set(key, had === undefined ? String(value) : `${had}, ${value}`);
  }

  delete(name: string): void {
    this.#map.delete(name.toLowerCase());
  }

  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }

  getSetCookie(): string[] {
    const value = this.#map.get('set-cookie');
    return value === undefined ? [] : [value];
  }

  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }

  set(name: string, value: string): void {
    this.#map.set(name.toLowerCase(), String(value));
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#map) callback.call(thisArg, value, name, this);
  }

  entries(): HeadersIterator<[string, string]> {
    return this.#map.entries() as HeadersIterator<[string, string]>;
  }

  keys(): HeadersIterator<string> {
    return this.#map.keys() as HeadersIterator<string>;
  }

  values(): HeadersIterator<string> {
    return this.#map.values() as HeadersIterator<string>;
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  /** `[name, value, name, value, ...]`: what node:http's writeHead takes without building an object. */
  flat(): string[] {
    const flat: string[] = [];
    for (const [name, value] of this.#map) flat.push(name, value);
    return flat;
  }
}
