import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adminOpenApi } from '../src/admin/openapi.js';
import { openApiJson, printSdl } from '../src/documents.js';
import { subgraphSdl } from '../src/federation/subgraph-schema.js';
import { schema } from '../src/schema/index.js';
import { settingsPage } from '../src/settings/page.js';

const committed = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

describe('committed generated files', () => {
  it('schema/schema.graphql is what the Pothos schema prints (run `npm run schema`)', () => {
    expect(printSdl(schema)).toBe(committed('schema/schema.graphql'));
  });

  it('schema/subgraph.graphql is the federation subgraph\'s SDL, as `_service { sdl }` answers it (run `npm run schema`)', () => {
    expect(`${subgraphSdl()}\n`).toBe(committed('schema/subgraph.graphql'));
  });

  it('schema/openapi.json is what SOFA and our completion generate (run `npm run schema`)', () => {
    expect(openApiJson(schema)).toBe(committed('schema/openapi.json'));
  });

  it('schema/admin-openapi.json is the admin API\'s document (run `npm run schema`)', () => {
    expect(`${JSON.stringify(adminOpenApi, null, 2)}\n`).toBe(committed('schema/admin-openapi.json'));
  });

  it('docs/settings.md is what the settings\' declarations print (run `npm run schema`)', () => {
    expect(settingsPage()).toBe(committed('docs/settings.md'));
  });
});
