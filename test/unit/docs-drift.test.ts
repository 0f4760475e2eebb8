import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { EXPOSED } from '../../src/pipeline/use-cors.js';

const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');

it('docs/operations.md names every header CORS lets browser code read', () => {
  const cors = operations.slice(operations.indexOf('- **CORS.**'), operations.indexOf('\n- **', operations.indexOf('- **CORS.**') + 1));
  const named = (header: string) => cors.includes(`\`${header}\``) || (header.startsWith('X-RateLimit-') && cors.includes('`X-RateLimit-*`'));
  expect(EXPOSED.filter((header) => !named(header))).toEqual([]);
});

it('docs/frontend.md shows each frontend example whole, as the tests run it', () => {
  const frontend = readFileSync(new URL('../../docs/frontend.md', import.meta.url), 'utf8');
  for (const file of ['examples/frontend-apollo.ts', 'examples/frontend-urql.ts']) {
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    expect(frontend, file).toContain(`<!-- ${file} -->\n\`\`\`ts\n${source}\`\`\``);
  }
});
