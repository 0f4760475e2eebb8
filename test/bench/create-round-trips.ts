/**
 * `npx tsx test/bench/create-round-trips.ts`: what a pet's create costs on MySQL (a pet row and its
 * event, in one transaction) by how its statements reach the server, with mysql2 alone (no service):
 *
 * - `multi`: one multi-statement text, values escaped into it by the client (the old way: unsafe under
 *   NO_BACKSLASH_ESCAPES, and it needs `multipleStatements`);
 * - `prepared`: START TRANSACTION, two prepared INSERTs, COMMIT: four round trips, values bound;
 * - `procedure`: one prepared CALL of a stored procedure doing the same: one round trip, values bound;
 * - `compound`: one prepared anonymous compound statement (MariaDB's `BEGIN NOT ATOMIC … END`) doing the
 *   same: one round trip, values bound, and no routine to create (MySQL has no such statement).
 *
 * mysql2 sends a connection's next command only when the previous one has answered (no pipelining), so
 * round trips are the cost that differs. BENCH_DATABASE_URL or TEST_DATABASE_URL names the server (a
 * database of its own is made and dropped); BENCH_CREATES (4000) per way and round, BENCH_ROUNDS (5),
 * BENCH_CONNECTIONS (32) at once over a pool of 10, as the service's.
 */
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { createDataSource } from '../../src/db/data-source.js';
import { migrate, migrator } from '../../src/db/migrate.js';

const base = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/';
const CREATES = Number(process.env.BENCH_CREATES ?? 4_000);
const CONCURRENT = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const name = `animal_store_rt_${randomBytes(3).toString('hex')}`;
const url = new URL(`/${name}`, base).toString();

const admin = await mysql.createConnection({ uri: new URL('/', base).toString() });
await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
try {
  const migrations = migrator({ kind: 'mysql', url, statementTimeoutSeconds: 5 });
  await migrate(await migrations.initialize());
  await migrations.destroy();
  await admin.query(`USE \`${name}\``);
  await admin.query(`CREATE PROCEDURE bench_create_pet(p_name VARCHAR(255), p_category BIGINT, p_status VARCHAR(16), p_at BIGINT, p_payload TEXT)
    SQL SECURITY INVOKER
    BEGIN
      DECLARE v_id BIGINT;
      DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
      START TRANSACTION;
      INSERT INTO pets (name, category_id, status) VALUES (p_name, p_category, p_status);
      SET v_id = LAST_INSERT_ID();
      INSERT INTO events (type, occurred_at, payload) VALUES ('pet.created', p_at, json_set(p_payload, '$.pet.id', v_id));
      COMMIT;
      SELECT v_id AS id;
    END`);

  const options = { uri: url, charset: 'utf8mb4_unicode_ci', timezone: 'Z', supportBigNumbers: true, bigNumberStrings: false, connectionLimit: 10 } as const;
  const plain = mysql.createPool(options);
  const multi = mysql.createPool({ ...options, multipleStatements: true });
  const INSERT = 'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)';
  const EVENT = "INSERT INTO events (type, occurred_at, payload) VALUES (?, ?, json_set(?, '$.pet.id', LAST_INSERT_ID()))";
  const payload = (petName: string) => JSON.stringify({ kind: 'CREATED', pet: { id: 0, name: petName, categoryId: 1, status: 'available' } });

  const COMPOUND = `BEGIN NOT ATOMIC START TRANSACTION; ${INSERT}; SELECT LAST_INSERT_ID() AS id; ${EVENT}; COMMIT; END`;
  const ways: Record<string, (petName: string) => Promise<number>> = {
    async multi(petName) {
      const connection = await multi.getConnection();
      try {
        const [results] = await connection.query(`START TRANSACTION;\n${INSERT};\n${EVENT};\nCOMMIT`,
          [petName, 1, 'available', 'pet.created', Date.now(), payload(petName)]) as unknown as [{ insertId: number }[]];
        return results[1]!.insertId;
      } finally { connection.release(); }
    },
    async prepared(petName) {
      const connection = await plain.getConnection();
      try {
        await connection.query('START TRANSACTION');
        const [inserted] = await connection.execute(INSERT, [petName, 1, 'available']) as unknown as [{ insertId: number }];
        await connection.execute(EVENT, ['pet.created', Date.now(), payload(petName)]);
        await connection.query('COMMIT');
        return inserted.insertId;
      } finally { connection.release(); }
    },
    async procedure(petName) {
      const [[rows]] = await plain.execute('CALL bench_create_pet(?, ?, ?, ?, ?)', [petName, 1, 'available', Date.now(), payload(petName)]) as unknown as [[{ id: number }[]]];
      return rows[0]!.id;
    },
    async compound(petName) {
      const [[rows]] = await plain.execute(COMPOUND, [petName, 1, 'available', 'pet.created', Date.now(), payload(petName)]) as unknown as [[{ id: number }[]]];
      return rows[0]!.id;
    },
  };

  const run = async (way: (petName: string) => Promise<number>, creates: number) => {
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENT }, async () => {
      while (next < creates) {
        next += 1;
        const at = performance.now();
        await way(`Bench ${next}`);
        latencies.push(performance.now() - at);
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => Number(latencies[Math.floor(q * (latencies.length - 1))]!.toFixed(2));
    return { 'creates/s': Math.round(creates / seconds), 'p50 ms': at(0.5), 'p99 ms': at(0.99) };
  };

  // Warm every way (each connection prepares its statements once), then take turns, round after round:
  // on a shared machine the load moves, so each way's median over the rounds is what compares.
  for (const way of Object.values(ways)) await run(way, 500);
  const rounds: Record<string, ReturnType<typeof run> extends Promise<infer R> ? R[] : never> = {};
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [label, way] of Object.entries(ways)) (rounds[label] ??= []).push(await run(way, CREATES));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`\n${CREATES} creates per way and round, ${ROUNDS} rounds taking turns, ${CONCURRENT} at once, pools of 10, Node ${process.version}; medians:`);
  console.table(Object.entries(rounds).map(([way, results]) => ({
    way,
    'creates/s': median(results.map((r) => r['creates/s'])),
    'p50 ms': median(results.map((r) => r['p50 ms'])),
    'p99 ms': median(results.map((r) => r['p99 ms'])),
  })));
  await plain.end();
  await multi.end();
} finally {
  await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.end();
}
