/**
 * The change gate (scripts/contract/): the repository passes it, and on a scratch copy of schema/ and
 * CHANGELOG.md a breaking change fails it by name until it is declared with the deprecation that preceded
 * it, while additive and dangerous changes pass and are listed. The real files are never touched.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runGate, type GateResult } from '../scripts/contract/check.js';
import { report } from '../scripts/contract/report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const scratches: string[] = [];
afterAll(() => scratches.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A temporary folder with copies of schema/ (its releases included) and CHANGELOG.md. */
function scratch() {
  const dir = mkdtempSync(join(tmpdir(), 'contract-gate-'));
  scratches.push(dir);
  cpSync(join(ROOT, 'schema'), join(dir, 'schema'), { recursive: true });
  cpSync(join(ROOT, 'CHANGELOG.md'), join(dir, 'CHANGELOG.md'));
  const edit = (path: string, change: (text: string) => string) => {
    const before = readFileSync(join(dir, path), 'utf8');
    const after = change(before);
    expect(after, `the edit of ${path} changed nothing`).not.toBe(before);
    writeFileSync(join(dir, path), after);
  };
  const openapi = (change: (doc: any) => void) => edit('schema/openapi.json', (text) => {
    const doc = JSON.parse(text);
    change(doc);
    return `${JSON.stringify(doc, null, 2)}\n`;
  });
  /** Entries under the Unreleased section's Breaking list. */
  const declare = (...entries: string[]) => edit('CHANGELOG.md', (text) => text.replace('### Breaking\n', `### Breaking\n\n${entries.map((entry) => `- ${entry}`).join('\n')}\n`));
  return { dir, edit, openapi, declare, gate: () => runGate(dir, '2026-11-29') };
}

const ids = (result: GateResult, level: string) => result.changes.filter((change) => change.level === level).map((change) => change.id);

// A field of Pet, gone from the SDL: never deprecated.
const withoutPetName = (sdl: string) => sdl.replace(/(type Pet implements Node \{[\s\S]*?)\n  """The animal's name\."""\n  name: String!\n/, '$1');
// Query.pet, gone: deprecated since 2026-11-21 in the release (getPet's field).
const withoutQueryPet = (sdl: string) => sdl.replace(/\n  """Fetch one animal by its identifier\."""\n  pet\([\s\S]*?\): Pet @deprecated\([^)]*\)\n/, '\n');

describe('the change gate', () => {
  it('passes on the repository: every change since the release is additive or declared', async () => {
    const result = await runGate(ROOT);
    expect(result.breaking.filter((one) => !one.declaredBy)).toEqual([]);
    expect(result.passed).toBe(true);
  });

  it('npm run contract:gate exits 1 naming an undeclared breaking change, 0 once it is declared', async () => {
    const { dir, edit, declare } = scratch();
    edit('schema/schema.graphql', withoutQueryPet);
    const run = () => promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/contract/gate.ts', '--root', dir], { cwd: ROOT })
      .then(({ stdout }) => ({ code: 0, stdout }), (failure: { code: number; stdout: string }) => failure);
    const failed = await run();
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain("`FIELD_REMOVED Query.pet`: Field 'pet' (deprecated) was removed from object type 'Query'  [NOT DECLARED");
    declare('`FIELD_REMOVED Query.pet`: deprecated since 2026-11-21. GraphQL clients: use `pets`.');
    const passed = await run();
    expect(passed.code).toBe(0);
    expect(passed.stdout).toContain('[declared]');
  }, 30_000);

  describe('GraphQL (schema/schema.graphql)', () => {
    it('fails on a field removed, naming it', async () => {
      const { edit, gate } = scratch();
      edit('schema/schema.graphql', withoutPetName);
      const result = await gate();
      expect(result.passed).toBe(false);
      expect(ids(result, 'breaking')).toEqual(['FIELD_REMOVED Pet.name']);
      expect(report(result)).toMatch(/schema\.graphql: `FIELD_REMOVED Pet\.name`: Field 'name' was removed from object type 'Pet' {2}\[NOT DECLARED: Pet\.name was not deprecated in the release/);
    });

    it('passes once the changelog declares it with the deprecation that preceded it', async () => {
      const { edit, declare, gate } = scratch();
      edit('schema/schema.graphql', withoutQueryPet);
      declare('`FIELD_REMOVED Query.pet`: Deprecation since 2026-11-21. GraphQL clients: use `pets`.');
      const result = await gate();
      expect(ids(result, 'breaking')).toEqual(['FIELD_REMOVED Query.pet']);
      expect(result.passed).toBe(true);
    });

    it('refuses the removal of what the release did not deprecate, however it is declared', async () => {
      for (const [name, change] of [['FIELD_REMOVED Pet.name', withoutPetName],
        ['ENUM_VALUE_REMOVED PetStatus.sold', (sdl: string) => sdl.replace('  """The animal\'s order was delivered."""\n  sold\n', '')]] as const) {
        const { edit, declare, gate } = scratch();
        edit('schema/schema.graphql', change);
        declare(`\`${name}\`: deprecated in 1.0.0.`);
        const result = await gate();
        expect(result.passed, name).toBe(false);
        expect(report(result), name).toContain(`${name.split(' ')[1]} was not deprecated in the release: deprecate it (@deprecated) in a release before removing it`);
      }
    });

    it('does not count a declaration without a deprecation, or citing one never released or yet to come, and says so', async () => {
      const { edit, declare, gate } = scratch();
      edit('schema/schema.graphql', withoutQueryPet);
      for (const [entry, why] of [
        ['`FIELD_REMOVED Query.pet`: nobody uses it.', 'it cites no deprecation'],
        ['`FIELD_REMOVED Query.pet`: deprecated in 0.9.0.', 'it cites 0.9.0, which has no section in CHANGELOG.md'],
        ['`FIELD_REMOVED Query.pet`: deprecated since 2027-01-01.', 'its deprecation date 2027-01-01 is in the future'],
      ] as const) {
        const { edit: editLog, declare: declareOne, gate: gateOne } = scratch();
        editLog('schema/schema.graphql', withoutQueryPet);
        declareOne(entry);
        const result = await gateOne();
        expect(result.passed, entry).toBe(false);
        expect(report(result), entry).toContain(`the entry naming it does not count: ${why}`);
      }
      declare('`FIELD_REMOVED Query.pet`: deprecated in 1.0.0.');
      expect((await gate()).passed).toBe(true);
    });

    it('passes an additive change and lists it', async () => {
      const { edit, gate } = scratch();
      edit('schema/schema.graphql', (sdl) => sdl.replace('type Pet implements Node {\n', 'type Pet implements Node {\n  """A nickname."""\n  nickname: String\n\n') + '\ntype Toy {\n  id: ID!\n}\n');
      const result = await gate();
      expect(result.passed).toBe(true);
      expect(ids(result, 'non-breaking')).toEqual(expect.arrayContaining(['FIELD_ADDED Pet.nickname', 'TYPE_ADDED Toy']));
      expect(report(result)).toContain('`FIELD_ADDED Pet.nickname`');
    });

    it('passes dangerous changes (an enum value added, an argument default changed) and lists them', async () => {
      const { edit, gate } = scratch();
      edit('schema/schema.graphql', (sdl) => sdl
        .replace('enum PetStatus {\n', 'enum PetStatus {\n  """Missing."""\n  lost\n\n')
        .replace('    """The maximum number of animals returned: 1 to 100."""\n    limit: Int = 20\n', '    """The maximum number of animals returned: 1 to 100."""\n    limit: Int = 50\n'));
      const result = await gate();
      expect(result.passed).toBe(true);
      expect(ids(result, 'dangerous')).toEqual(expect.arrayContaining(['ENUM_VALUE_ADDED PetStatus.lost', 'FIELD_ARGUMENT_DEFAULT_CHANGED Query.pets.limit']));
      expect(report(result)).toMatch(/Dangerous[^\n]*:\n(.*\n)*.*`ENUM_VALUE_ADDED PetStatus\.lost`/);
    });
  });

  describe('REST (schema/openapi.json)', () => {
    it('fails on a path removed, a parameter made required and a response property removed, naming each', async () => {
      const { openapi, gate } = scratch();
      openapi((doc) => {
        delete doc.paths['/rate_limit'];
        doc.paths['/pets'].get.parameters.find((parameter: { name: string }) => parameter.name === 'limit').required = true;
        delete doc.components.schemas.Order.properties.complete;
        doc.components.schemas.Order.required = doc.components.schemas.Order.required.filter((name: string) => name !== 'complete');
      });
      const result = await gate();
      expect(result.passed).toBe(false);
      expect(ids(result, 'breaking')).toEqual(expect.arrayContaining([
        'path.remove paths./rate_limit',
        'parameter.required.set paths./pets.get.parameters.query.limit',
        'response.body.scope.add paths./store/orders/{orderId}.get.responses.200.content.application/json.schema',
      ]));
      const text = report(result);
      expect(text).toContain('`path.remove paths./rate_limit`: path removed  [NOT DECLARED');
      expect(text).toContain('`parameter.required.set paths./pets.get.parameters.query.limit`: GET /pets: query parameter "limit" became required  [NOT DECLARED');
    });

    it('passes once each is declared with the deprecation that preceded it', async () => {
      const { openapi, declare, gate } = scratch();
      openapi((doc) => { delete doc.paths['/pets/{petId}'].get; });
      let result = await gate();
      expect(ids(result, 'breaking')).toEqual(['path.remove paths./pets/{petId}']);
      declare('`path.remove paths./pets/{petId}`: deprecated since 2026-11-21. REST clients: use `GET /v1/pets`.');
      result = await gate();
      expect(result.passed).toBe(true);
    });

    it('refuses the removal of an operation or parameter the release did not deprecate, however it is declared', async () => {
      const { openapi, declare, gate } = scratch();
      openapi((doc) => {
        delete doc.paths['/rate_limit'];
        doc.paths['/pets'].get.parameters = doc.paths['/pets'].get.parameters.filter((parameter: { name: string }) => parameter.name !== 'status');
      });
      declare(
        '`path.remove paths./rate_limit`: deprecated in 1.0.0.',
        '`parameter.remove paths./pets.get.parameters.query.status`: deprecated since 2026-11-21.',
      );
      const result = await gate();
      expect(result.passed).toBe(false);
      const text = report(result);
      expect(text).toContain('GET /rate_limit was not deprecated in the release: deprecate it (`deprecated: true`) in a release before removing it');
      expect(text).toContain('GET /pets: query parameter "status" was not deprecated in the release');
    });

    it('fails on an enum value a request body no longer takes (openapi-diff does not compare enums)', async () => {
      const { openapi, gate } = scratch();
      openapi((doc) => { doc.components.schemas.NewPet.properties.status.enum = ['available', 'pending']; });
      const result = await gate();
      expect(ids(result, 'breaking')).toEqual(['request.body.enum.remove paths./pets.post.requestBody.content.application/json.schema.properties.status']);
    });

    it('passes an additive change (a new optional parameter, a new path) and lists it; an enum value a response may hold is dangerous', async () => {
      const { openapi, gate } = scratch();
      openapi((doc) => {
        doc.paths['/pets'].get.parameters.push({ in: 'query', name: 'sort', required: false, schema: { type: 'string' } });
        doc.paths['/categories'] = { get: { operationId: 'listCategories', responses: { 200: { description: 'The categories.' } } } };
        doc.components.schemas.PetStatus.enum.push('lost');
        doc.components.schemas.Pet.properties.status.enum.push('lost');
      });
      const result = await gate();
      expect(result.passed).toBe(true);
      expect(ids(result, 'breaking')).toEqual([]);
      expect(ids(result, 'non-breaking')).toEqual(expect.arrayContaining(['parameter.optional.add paths./pets.get.parameters.query.sort', 'path.add paths./categories']));
      expect(ids(result, 'dangerous')).toContain('response.body.enum.add paths./pets/{petId}.get.responses.200.content.application/json.schema.properties.status');
    });
  });
});
