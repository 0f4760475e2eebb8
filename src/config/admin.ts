import type { AdminConfig } from './types.js';

const NAME = /^[A-Za-z0-9._-]{1,64}$/;
const TOKEN = /^[\x21-\x7e]{32,256}$/;

/**
 * ADMIN_PORT, ADMIN_HOST and ADMIN_TOKENS (`name:token,name:token`): the admin API, or none. A port
 * without operators (or operators without a port) is refused at startup rather than left open or unused.
 */
export function adminConfig(port: number | undefined, host: string | undefined, tokens: string | undefined, problems: string[]): AdminConfig | undefined {
  if (port === undefined) {
    if (tokens !== undefined) problems.push('ADMIN_TOKENS is set without ADMIN_PORT: set the port the admin API listens on, or unset the tokens');
    return undefined;
  }
  if (tokens === undefined) {
    problems.push('ADMIN_PORT needs ADMIN_TOKENS (`name:token,…`): the admin API takes operator tokens, never API keys');
    return undefined;
  }
  const operators = new Map<string, string>();
  for (const pair of tokens.split(',')) {
    const at = pair.indexOf(':');
    const name = pair.slice(0, at).trim();
    const token = pair.slice(at + 1).trim();
    if (at < 0 || !NAME.test(name)) {
      problems.push('ADMIN_TOKENS must be `name:token` pairs, comma-separated, each name 1 to 64 letters, digits, dots, dashes or underscores');
    } else if (!TOKEN.test(token) || token.startsWith('ask_')) {
      problems.push(`ADMIN_TOKENS: ${name}'s token must be 32 to 256 visible characters other than a comma, and not an API key (\`openssl rand -hex 32\` makes one)`);
    } else if (operators.has(token) || [...operators.values()].includes(name)) {
      problems.push(`ADMIN_TOKENS: ${name} is there twice, or shares a token`);
    } else {
      operators.set(token, name);
    }
  }
  return { port, host: host ?? '127.0.0.1', operators };
}
