/** `npm run schema`: regenerates the committed schema files and the settings page; the drift test fails until they are. */
import { writeFileSync } from 'node:fs';
import { adminOpenApi } from '../admin/openapi.js';
import { openApiJson, printSdl } from '../documents.js';
import { subgraphSdl } from '../federation/subgraph-schema.js';
import { schema } from '../schema/index.js';
import { settingsPage } from '../settings/page.js';

const files = {
  'schema/schema.graphql': printSdl(schema), 'schema/subgraph.graphql': `${subgraphSdl()}\n`,
  'schema/openapi.json': openApiJson(schema), 'schema/admin-openapi.json': `${JSON.stringify(adminOpenApi, null, 2)}\n`,
  'docs/settings.md': settingsPage(),
};
for (const [path, text] of Object.entries(files)) {
  writeFileSync(path, text);
  console.log(`wrote ${path}`);
}
