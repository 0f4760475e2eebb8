import type { OpenAPIV3 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { completeOpenApi } from '../../src/rest/openapi.js';
import { sofaDocumentOf } from '../../src/documents.js';
import { schema } from '../../src/schema/index.js';

const PET_STATUS = { $ref: '#/components/schemas/PetStatus' };

/** SOFA's document for our schema, with `$ref` siblings where SOFA writes them for other shapes of field. */
function sofaDocumentWithSiblings(): OpenAPIV3.Document {
  const doc = structuredClone(sofaDocumentOf(schema)) as OpenAPIV3.Document;
  const pet = doc.components!.schemas!.Pet as OpenAPIV3.SchemaObject;
  pet.properties!.previousStatus = { ...PET_STATUS, description: 'The status before the last change.' };
  pet.properties!.history = { type: 'array', items: { ...PET_STATUS, description: 'A past status.' } };
  const status = doc.paths['/pets']!.get!.parameters!.find((p) => 'name' in p && p.name === 'status') as OpenAPIV3.ParameterObject;
  Object.assign(status.schema!, { default: 'available' });
  return doc;
}

describe('completeOpenApi', () => {
  const doc = completeOpenApi(sofaDocumentWithSiblings(), schema);
  const pet = doc.components!.schemas!.Pet as OpenAPIV3.SchemaObject;
  const list = doc.paths['/pets']!.get!.parameters as OpenAPIV3.ParameterObject[];

  it('moves a parameter\'s description from its schema to the parameter, where Swagger UI shows it', () => {
    expect(list.find((p) => p.name === 'limit')).toEqual({
      name: 'limit', in: 'query', required: false, description: 'The maximum number of animals returned: 1 to 100.',
      schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 },
    });
  });

  it('wraps a $ref in allOf to keep what else its parameter schema says', () => {
    expect(list.find((p) => p.name === 'status')).toEqual({
      name: 'status', in: 'query', required: false, description: 'Only animals with this status. Omitted: no filter.',
      schema: { allOf: [PET_STATUS], default: 'available' },
    });
  });

  it('wraps a $ref in allOf to keep its description, in properties and array items', () => {
    expect(pet.properties!.previousStatus).toEqual({ allOf: [PET_STATUS], description: 'The status before the last change.' });
    expect(pet.properties!.history).toEqual({ type: 'array', items: { allOf: [PET_STATUS], description: 'A past status.' } });
  });

  it('leaves no $ref with a sibling anywhere in the document', () => {
    const withSiblings: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (typeof node !== 'object' || node === null) return;
      if ('$ref' in node && Object.keys(node).length > 1) withSiblings.push(path);
      for (const [key, child] of Object.entries(node)) visit(child, `${path}/${key}`);
    };
    visit(doc, '#');
    expect(withSiblings).toEqual([]);
  });
});
