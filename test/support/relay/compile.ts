import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createOperationDescriptor, Environment, fetchQuery, getRequest, Network, RecordSource, Store,
  type ConcreteRequest, type ReaderFragment, type Variables,
} from 'relay-runtime';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FIXTURE = join(ROOT, 'test', 'support', 'relay');
const COMPILER = join(ROOT, 'node_modules', 'relay-compiler', 'cli.js');

/** What relay-compiler wrote for PetStore.ts, loaded. */
export interface RelayArtifacts {
  readonly fragment: ReaderFragment;
  readonly pets: ConcreteRequest;
  readonly refetch: ConcreteRequest;
  readonly sameId: ConcreteRequest;
  /** With `persist`: the manifest relay-compiler wrote (persisted_queries.json, SHA-256 id to text). */
  readonly manifest?: string;
  remove(): Promise<void>;
}

/**
 * Runs the real relay-compiler on PetStore.ts with relay.config.json as a frontend would, but writing into
 * a folder of its own (two projects run this at once, and nothing generated is committed): the compiler
 * takes no output folder beside a config file, so the config is copied there with its paths made absolute.
 */
export async function compileRelay({ persist = false } = {}): Promise<RelayArtifacts> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-relay-'));
  const out = join(dir, '__generated__');
  await mkdir(out);
  const config = JSON.parse(await readFile(join(FIXTURE, 'relay.config.json'), 'utf8')) as Record<string, unknown>;
  // Relay's local persisting: the operations' texts go to the manifest, the artifacts carry only their ids.
  const manifest = join(dir, 'persisted_queries.json');
  if (persist) await writeFile(manifest, '{}');
  const absolute = {
    ...config, src: FIXTURE, schema: join(FIXTURE, String(config.schema)), artifactDirectory: out,
    ...(persist ? { persistConfig: { file: manifest, algorithm: 'SHA256' } } : {}),
  };
  await writeFile(join(dir, 'relay.config.json'), JSON.stringify(absolute));
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, [COMPILER, 'relay.config.json'], { cwd: dir, env: { PATH: process.env.PATH } }, (error, stdout, stderr) =>
      (error ? reject(new Error(`relay-compiler failed:\n${stdout}${stderr}`)) : resolve()));
  });
  const artifact = async <T>(name: string) => ((await import(pathToFileURL(join(out, `${name}.graphql.ts`)).href)) as { default: T }).default;
  return {
    fragment: await artifact<ReaderFragment>('PetStore_pet'),
    pets: await artifact<ConcreteRequest>('PetStorePetsQuery'),
    refetch: await artifact<ConcreteRequest>('PetStorePetRefetchQuery'),
    sameId: await artifact<ConcreteRequest>('PetStoreSameIdQuery'),
    ...(persist ? { manifest } : {}),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A record of the store, as relay-runtime keeps it. */
export type StoredRecord = Record<string, unknown> & { __id: string; __typename: string };

/**
 * A Relay environment on the service, configured as docs/api.md tells a frontend: records keyed by their
 * `nodeId` (none for a type without one: Relay keys those by their place), and a network that POSTs each
 * operation to /graphql with the key.
 */
export function relayEnvironment(url: string, headers: Record<string, string>) {
  const environment = new Environment({
    network: Network.create(async (params, variables) => {
      // A persisted operation has its id and no text: it is sent by id (a trusted document).
      const operation = params.text === null ? { documentId: params.id } : { query: params.text };
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ ...operation, variables, operationName: params.name }),
      });
      return response.json();
    }),
    store: new Store(new RecordSource()),
    getDataID: (fieldValue) => fieldValue.nodeId,
  });
  const records = (): StoredRecord[] => {
    const source = environment.getStore().getSource();
    return source.getRecordIDs().map((id) => source.get(id) as StoredRecord).filter(Boolean);
  };
  /** Runs an operation to the end, and keeps its records (fetchQuery alone retains them only while it runs). */
  const run = async (request: ConcreteRequest, variables: Variables) => {
    environment.retain(createOperationDescriptor(getRequest(request), variables));
    return fetchQuery(environment, request, variables).toPromise();
  };
  return { environment, records, fetch: run };
}
