import { connect, createServer, type AddressInfo } from 'node:net';
import mysql2, { type PoolOptions } from 'mysql2';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.js';
import { systemClock } from '../../src/clock.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import { createDataSource } from '../../src/db/data-source.js';
import { migrate, migrator } from '../../src/db/migrate.js';
import { createSessionPool } from '../../src/db/mysql-session.js';
import { petStore } from '../../src/db/pets.js';
import { startServer, type TestServer } from '../support/server.js';
import { mariadbServer, type MariadbServerLab } from './lab/mariadb-server.js';

/**
 * Values never travel inside SQL text: under sql_modes that change how a server reads that text, names
 * full of SQL's own characters are stored exactly as sent and change nothing else. One MariaDB of the
 * test's own; each mode is its global sql_mode (new connections take it) while one database is served.
 */
let lab: MariadbServerLab;
let defaultMode: string;
beforeAll(async () => {
  lab = await mariadbServer();
  [{ mode: defaultMode }] = await lab.execute('SELECT @@GLOBAL.sql_mode AS mode') as [{ mode: string }];
}, 60_000);
afterAll(async () => { await lab?.stop(); });

/**
 * Ends a client-escaped INSERT on a server that reads backslashes as themselves, updates every key, and
 * commits that before the rest of a multi-statement batch fails: what the finding saw a `pets:write` key do.
 */
const INJECTION = "', 1, 0x617661696c61626c65); UPDATE api_keys SET scopes = NULL; COMMIT; #";
const NAMES = [
  INJECTION,
  "O'Brien \"the cat\" said: it''s mine",
  'C:\\path\\to\\ \\\' \\" \\\\ \\0 \\n \\Z \\%',
  "-- not a comment /* nor this */ # nor this; SELECT 1; ' OR '1'='1",
  '"); DROP TABLE pets; -- `backticks` ${x} ? ?? :name @var',
  'Ünïcødé 🐈‍⬛ 中文 עברית %_ \u00a0non-breaking',
];

const PET = 'id name categoryId status';
const snapshot = async (database: string) => ({
  keys: await lab.execute('SELECT id, scopes, name FROM api_keys ORDER BY id', [], database),
  counts: (await lab.execute(
    'SELECT (SELECT COUNT(*) FROM pets) AS pets, (SELECT COUNT(*) FROM events) AS events, (SELECT COUNT(*) FROM orders) AS orders, '
    + '(SELECT COUNT(*) FROM webhook_endpoints) AS endpoints, (SELECT COUNT(*) FROM idempotency_records) AS idempotency', [], database,
  ))[0],
});

describe("the service's MySQL pools", () => {
  it('send a query with values as a prepared statement, and refuse to escape values into text', async () => {
    const pool = createSessionPool({ uri: lab.url('mysql'), connectionLimit: 1 }, []);
    try {
      const ask = (send: (done: (error: Error | null, rows: unknown) => void) => void) => new Promise<unknown>((resolve, reject) => {
        send((error, rows) => (error ? reject(error) : resolve(rows)));
      });
      // A connection's query with values (TypeORM's way) is bound: the value comes back as sent.
      const connection = await new Promise<mysql2.PoolConnection>((resolve, reject) => pool.getConnection((error, c) => (error ? reject(error) : resolve(c))));
      expect(await ask((done) => connection.query('SELECT ? AS name', [INJECTION], done))).toEqual([{ name: INJECTION }]);
      connection.release();
      // The pool's own query formats values before any connection sees them: refused, never sent.
      await expect(ask((done) => pool.query('SELECT ? AS name', [INJECTION], done)))
        .rejects.toThrow('Values are bound as parameters of a prepared statement, never escaped into SQL text');
      expect(await ask((done) => pool.query('SELECT 1 AS one', done))).toEqual([{ one: 1 }]);
    } finally {
      await new Promise((resolve) => pool.end(resolve));
    }
  });
});

describe('a create on MariaDB', () => {
  it('is one round trip: the change and its event go as one prepared compound statement', async () => {
    const database = 'round_trips';
    await lab.execute(`CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    const target = new URL(lab.url(database));
    const migrations = migrator({ kind: 'mysql', url: target.toString(), statementTimeoutSeconds: 5 });
    await migrate(await migrations.initialize());
    await migrations.destroy();
    // A hop between the pool and the server that counts what the pool sends: one write per command.
    let writes = 0;
    const server = { port: Number(target.port), host: target.hostname };
    const hop = createServer((client) => {
      const upstream = connect(server.port, server.host);
      client.on('data', (chunk) => { writes += 1; upstream.write(chunk); });
      upstream.pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));
    target.port = String((hop.address() as AddressInfo).port);
    const dataSource = await createDataSource({ kind: 'mysql', url: target.toString(), statementTimeoutSeconds: 5 }).initialize();
    try {
      const pets = petStore(dataSource, systemClock)();
      // Every connection of the pool has prepared the statement (and run its session set-up) by now.
      await Promise.all(Array.from({ length: 12 }, () => pets.create({ name: 'Warm', categoryId: 1, status: 'available' })));
      const before = writes;
      await pets.create({ name: "O'Brien", categoryId: 1, status: 'available' });
      expect(writes - before).toBe(1);
    } finally {
      await dataSource.destroy();
      hop.close();
    }
  });
});

describe.each(['NO_BACKSLASH_ESCAPES', 'ANSI_QUOTES'])('on a MariaDB whose sql_mode has %s', (mode) => {
  const database = mode.toLowerCase();
  let api: TestServer;
  beforeAll(async () => {
    await lab.execute(`CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await lab.execute('SET GLOBAL sql_mode = ?', [`${defaultMode},${mode}`]);
    // Migrations run at startup, under the mode.
    api = await startServer({ env: { DATABASE_URL: lab.url(database) } });
    const [{ current }] = await lab.execute('SELECT @@GLOBAL.sql_mode AS current') as [{ current: string }];
    expect(current.split(',')).toContain(mode);
  }, 60_000);
  afterAll(async () => { await api?.stop(); });

  it("a pets:write key's name that would end a client-escaped INSERT is only a name: every key keeps its scopes", async () => {
    const writer = await api.newKey('enterprise', { perMinute: 100_000, perDay: 100_000 }, 'pets:write');
    const before = await snapshot(database);
    const created = await api.post('/v1/pets', { name: INJECTION, categoryId: 1 }, writer.auth);
    expect((await snapshot(database)).keys).toEqual(before.keys);
    expect(created.status).toBe(201);
    expect((await api.get(`/v1/pets/${created.body.id}`)).body).toEqual({ id: created.body.id, name: INJECTION, categoryId: 1, status: 'available' });
    expect((await api.get('/v1/pets', writer.auth)).status).toBe(403);
  });

  it('stores names full of quotes, backslashes and comment markers exactly, on both surfaces, and changes nothing else', async () => {
    const writer = await api.newKey('enterprise', { perMinute: 100_000, perDay: 100_000 }, 'pets:write');
    const before = await snapshot(database);
    const [{ from }] = await lab.execute('SELECT COALESCE(MAX(id), 0) AS `from` FROM events', [], database);

    const expected: object[] = [];
    for (const [i, name] of NAMES.entries()) {
      // Made by a key that may only write pets: it must not reach any other table.
      const created = await api.post('/v1/pets', { name, categoryId: i + 1 }, writer.auth);
      expect(created.status).toBe(201);
      const pet = { id: created.body.id, name, categoryId: i + 1, status: 'available' };
      expect(created.body).toEqual(pet);
      expect((await api.get(`/v1/pets/${pet.id}`)).body).toEqual(pet);
      // Renamed to the next hostile name, on the other surface.
      const renamed = { ...pet, name: NAMES[(i + 1) % NAMES.length]! };
      const update = await api.gql(`mutation($id: SafeInt!, $name: String!) { updatePet(petId: $id, input: { name: $name }) { ${PET} } }`, { id: pet.id, name: renamed.name });
      expect(update.body).toEqual({ data: { updatePet: renamed } });
      expect((await api.gql(`query($id: SafeInt!) { pet(petId: $id) { ${PET} } }`, { id: pet.id })).body.data).toEqual({ pet: renamed });
      // Created by GraphQL too.
      const viaGraphql = await api.gql(`mutation($name: String!) { createPet(input: { name: $name, categoryId: 7 }) { ${PET} } }`, { name });
      expect(viaGraphql.body.data.createPet).toEqual({ id: expect.any(Number), name, categoryId: 7, status: 'available' });
      expected.push(pet, renamed, viaGraphql.body.data.createPet);
    }

    // The list and the event feed carry the same names, byte for byte.
    const listed = (await api.get(`/v1/pets?limit=100`)).body as { id: number; name: string }[];
    const names = new Map(listed.map((pet) => [pet.id, pet.name]));
    for (const pet of expected.filter((_, i) => i % 3 !== 0) as { id: number; name: string }[]) expect(names.get(pet.id)).toBe(pet.name);
    const feed = await api.get(`/v1/events?after=${from}&limit=100`);
    expect(feed.body.map((event: any) => event.pet)).toEqual(expected);
    expect(feed.body.map((event: any) => event.type)).toEqual(expected.map((_, i) => (i % 3 === 1 ? 'pet.updated' : 'pet.created')));
    const graphqlFeed = await api.gql(`query($after: SafeInt) { events(after: $after, limit: 100) { pet { ${PET} } } }`, { after: from || null });
    expect(graphqlFeed.body.data.events.map((event: any) => event.pet)).toEqual(expected);

    // Nothing else moved: every key's scopes as they were, and only the pets and their events were added.
    const after = await snapshot(database);
    expect(after.keys).toEqual(before.keys);
    expect(after.counts).toEqual({
      ...before.counts, pets: Number(before.counts.pets) + 2 * NAMES.length, events: Number(before.counts.events) + 3 * NAMES.length,
    });
    expect((await api.get('/v1/pets', writer.auth)).status).toBe(403);
  });

  it('stores a key named with the same characters exactly (the keys command writes through TypeORM)', async () => {
    const admin = await createDataSource({ kind: 'mysql', url: lab.url(database), statementTimeoutSeconds: 5 }).initialize();
    try {
      const before = await snapshot(database);
      for (const name of NAMES) {
        const { record } = await createKey(apiKeyStore(admin), { plan: 'free', name, scopes: 'pets:read' });
        expect((await apiKeyStore(admin).findById(record.id))).toMatchObject({ name, scopes: 'pets:read' });
      }
      const after = await snapshot(database);
      expect(after.keys.slice(0, before.keys.length)).toEqual(before.keys);
      expect(after.keys.slice(before.keys.length).map((key: any) => key.name)).toEqual(NAMES);
    } finally {
      await admin.destroy();
    }
  });

  it('stores them exactly when a change goes as one prepared statement after another, as on MySQL (no compound statements)', async () => {
    // The same data source, its connections taken for MySQL's: prepared.ts then sends each statement on its own.
    const options = createDataSource({ kind: 'mysql', url: lab.url(database), statementTimeoutSeconds: 5 }).options;
    const asMysql = { ...mysql2, createPool: (pool: PoolOptions) => createSessionPool(pool, []).on('connection', (connection) => {
      (connection as unknown as { _isMariaDB: boolean })._isMariaDB = false;
    }) };
    const dataSource = await new DataSource({ ...options, driver: asMysql } as typeof options).initialize();
    try {
      const pets = petStore(dataSource, systemClock)();
      const before = await snapshot(database);
      for (const [i, name] of NAMES.entries()) {
        const pet = await pets.create({ name, categoryId: i + 1, status: 'available' });
        expect(await pets.get(pet.id)).toEqual({ id: pet.id, name, categoryId: i + 1, status: 'available' });
        const next = NAMES[(i + 1) % NAMES.length]!;
        expect(await pets.update(pet.id, { name: next })).toEqual({ ...pet, name: next });
        const events = await lab.execute('SELECT type, payload FROM events ORDER BY id DESC LIMIT 2', [], database);
        expect(events.map((event) => [event.type, JSON.parse(event.payload)])).toEqual([
          ['pet.updated', { kind: 'UPDATED', pet: { ...pet, name: next } }],
          ['pet.created', { kind: 'CREATED', pet }],
        ]);
      }
      const after = await snapshot(database);
      expect(after.keys).toEqual(before.keys);
      expect(after.counts).toEqual({ ...before.counts, pets: Number(before.counts.pets) + NAMES.length, events: Number(before.counts.events) + 2 * NAMES.length });
    } finally {
      await dataSource.destroy();
    }
  });
});
