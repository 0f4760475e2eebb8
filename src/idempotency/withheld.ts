import type { SecretHome } from '../domain/secrets.js';

/** A secret cut out of a kept body: where it goes back (an offset in the cut body) and where it is kept. */
export interface Withheld {
  readonly at: number;
  readonly home: SecretHome;
}

/**
 * The body with every occurrence of each shown secret cut out, and where each was. Offsets rather than
 * a placeholder: nothing a client wrote into the body (a URL, a name) can be taken for one.
 */
export function withhold(body: string, shown: readonly { secret: string; home: SecretHome }[]): { body: string; withheld: Withheld[] } {
  if (shown.length === 0) return { body, withheld: [] };
  const found: { index: number; length: number; home: SecretHome }[] = [];
  for (const { secret, home } of shown) {
    if (secret.length === 0) continue;
    for (let index = body.indexOf(secret); index !== -1; index = body.indexOf(secret, index + secret.length)) {
      found.push({ index, length: secret.length, home });
    }
  }
  found.sort((a, b) => a.index - b.index);
  let cut = '';
  let from = 0;
  const withheld: Withheld[] = [];
  for (const { index, length, home } of found) {
    if (index < from) continue;
    cut += body.slice(from, index);
    withheld.push({ at: cut.length, home });
    from = index + length;
  }
  return { body: cut + body.slice(from), withheld };
}

/**
 * The body as first sent: each withheld secret read again from its home (each home once). A home whose
 * secret is gone is returned instead, for the caller to say so.
 */
export async function restore(
  body: string, withheld: readonly Withheld[], read: (home: SecretHome) => Promise<string | undefined>,
): Promise<{ body: string } | { gone: SecretHome }> {
  const homes = [...new Map(withheld.map(({ home }) => [`${home.kind}:${home.id}`, home])).entries()];
  const found = await Promise.all(homes.map(async ([name, home]) => [name, home, await read(home)] as const));
  const gone = found.find(([, , secret]) => secret === undefined);
  if (gone) return { gone: gone[1] };
  const secrets = new Map(found.map(([name, , secret]) => [name, secret!]));
  let whole = '';
  let from = 0;
  for (const { at, home } of withheld) {
    whole += body.slice(from, at) + secrets.get(`${home.kind}:${home.id}`)!;
    from = at;
  }
  return { body: whole + body.slice(from) };
}
