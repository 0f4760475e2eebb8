import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { OpenAPIV3 } from 'openapi-types';

type Document = OpenAPIV3.Document;
type Header = OpenAPIV3.HeaderObject;
type Schema = OpenAPIV3.SchemaObject;

// ajv-formats is CommonJS: depending on the loader, its plugin is the default export or that export's `default`.
const addFormats: typeof formats.default = typeof formats === 'function' ? formats : (formats as unknown as { default: typeof formats.default }).default;

/** An answer as the test got it: what was asked, and what came back. */
export interface Answer {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  /** The body's text; undefined when it was not read (a stream, a HEAD). */
  readonly text: string | undefined;
}

/** What the checker made of an answer: which operation it matched, and what in it the document does not allow. */
export interface Verdict {
  /** `getPet 200`; undefined when the document describes no such route (it was not checked). */
  readonly operation?: string;
  readonly problems: readonly string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type Method = (typeof METHODS)[number];

/** JSON bodies are validated against their schema; others (an event stream) only by their media type. */
export const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

const pointer = (...segments: string[]) => `#/${segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** A path template as a pattern: `/pets/{petId}` → /^\/pets\/([^/]+)$/. */
function templatePattern(template: string): RegExp {
  const parts = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('([^/]+)')}$`);
}

/**
 * Judges answers by an OpenAPI 3.0 document alone: the operation is the one whose path template (below the
 * document's server URL) and method match the request; HEAD, when the document has no HEAD operation of its
 * own, is judged as the path's GET without a body (RFC 9110: the same header fields). An answer the document
 * describes no route for (an unknown path, a method the path does not have) is left unjudged. Otherwise:
 * its status must be among the operation's responses (exactly, by class such as `4XX`, or `default`); every
 * header the response marks `required` must be present, and each documented header present must match its
 * schema; a body must come in a media type the response lists (none when it lists none), and a JSON body must
 * validate against that media type's schema, by AJV compiled from the document (OpenAPI 3.0's `nullable` is
 * AJV's own keyword), with its formats.
 */
export function responseChecker(document: Document) {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document as object, 'openapi.json');
  const compiled = new Map<string, ValidateFunction>();
  const headerValidators = new WeakMap<object, ValidateFunction>();
  const validator = (ref: string) => {
    let validate = compiled.get(ref);
    if (!validate) compiled.set(ref, validate = ajv.compile({ $ref: `openapi.json${ref}` }));
    return validate;
  };
  const resolve = <T>(node: T | OpenAPIV3.ReferenceObject): T => {
    let found: unknown = node;
    while (found && typeof found === 'object' && '$ref' in found) {
      const path = (found as OpenAPIV3.ReferenceObject).$ref.slice(2).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
      found = path.reduce<any>((at, segment) => at?.[segment], document);
    }
    return found as T;
  };

  const base = new URL(document.servers?.[0]?.url ?? '/', 'http://server').pathname.replace(/\/$/, '');
  const templates = Object.keys(document.paths)
    .map((template) => ({ template, pattern: templatePattern(template), variables: (template.match(/\{/g) ?? []).length }))
    // A literal segment wins over a variable one, as routers match them.
    .sort((a, b) => a.variables - b.variables);

  function operationOf(method: string, pathname: string) {
    if (!pathname.startsWith(`${base}/`)) return undefined;
    const path = pathname.slice(base.length);
    const found = templates.find(({ pattern }) => pattern.test(path));
    if (!found) return undefined;
    const item = document.paths[found.template]!;
    const asked = method.toLowerCase() as Method;
    const own = METHODS.includes(asked) ? item[asked] : undefined;
    if (own) return { operation: own, at: ['paths', found.template, asked], bodiless: asked === 'head' };
    if (asked === 'head' && item.get) return { operation: item.get, at: ['paths', found.template, 'get'], bodiless: true };
    return undefined;
  }

  function checkHeader(name: string, header: Header, headers: Headers, problems: string[]) {
    const value = headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`header ${name} is required and missing`);
      return;
    }
    const schema = resolve(header.schema) as Schema | undefined;
    if (!schema) return;
    // A header is text: a number or boolean schema judges what the text says.
    const typed = schema.type === 'integer' || schema.type === 'number' ? (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value)
      : schema.type === 'boolean' ? (value === 'true' ? true : value === 'false' ? false : value) : value;
    let validate = headerValidators.get(schema);
    if (!validate) headerValidators.set(schema, validate = ajv.compile(schema));
    if (!validate(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors, { dataVar: 'value' })}`);
  }

  return function check(answer: Answer): Verdict {
    const found = operationOf(answer.method, new URL(answer.url).pathname);
    if (!found) return { problems: [] };
    const { operation: op, at, bodiless } = found;
    const status = String(answer.status);
    const name = `${op.operationId ?? at.join(' ')} ${status}`;
    const key = status in op.responses ? status : `${status[0]}XX` in op.responses ? `${status[0]}XX` : 'default' in op.responses ? 'default' : undefined;
    if (!key) return { operation: name, problems: [`status ${status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`] };
    const response = resolve(op.responses[key]!);
    const problems: string[] = [];
    for (const [header, definition] of Object.entries(response.headers ?? {})) checkHeader(header, resolve(definition), answer.headers, problems);

    const mediaType = answer.headers.get('content-type')?.split(';')[0]!.trim().toLowerCase();
    const content = response.content ?? {};
    if (bodiless || answer.status === 204 || answer.status === 304) {
      if (answer.text) problems.push(`a ${bodiless ? 'HEAD answer' : `${status}`} has a body`);
      return { operation: name, problems };
    }
    if (Object.keys(content).length === 0) {
      if (answer.text) problems.push(`the response documents no body, and one came (${mediaType})`);
      return { operation: name, problems };
    }
    if (!mediaType || !(mediaType in content)) {
      problems.push(`media type ${mediaType} is not documented (documented: ${Object.keys(content).join(', ')})`);
      return { operation: name, problems };
    }
    if (!isJson(mediaType) || answer.text === undefined) return { operation: name, problems };
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      problems.push(`the ${mediaType} body is not JSON: ${answer.text.slice(0, 200)}`);
      return { operation: name, problems };
    }
    // The schema as the document reaches it: through the response's $ref, when it has one.
    const responseAt = '$ref' in op.responses[key]! ? (op.responses[key] as OpenAPIV3.ReferenceObject).$ref.slice(2).split('/') : [...at, 'responses', key];
    const validate = validator(pointer(...responseAt.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')), 'content', mediaType, 'schema'));
    if (!validate(body)) {
      problems.push(`body: ${ajv.errorsText(validate.errors, { dataVar: 'body', separator: '; ' })}`
        + ` in ${JSON.stringify(body).slice(0, 300)}`);
    }
    return { operation: name, problems };
  };
}
