/**
 * The scale lab's MariaDB primary and replica and a Redis Cluster (3 masters, a replica each), kept up
 * until Ctrl-C, for `npm run bench` on them (`npx tsx test/bench/lab.ts`, then the printed settings
 * before `npm run bench`).
 */
import { mariadbReplica } from '../scale/lab/mariadb-replica.js';
import { redisCluster } from '../scale/lab/redis-cluster.js';

const [database, redis] = await Promise.all([mariadbReplica(), redisCluster({ masters: 3, replicasEach: 1 })]);
const base = (url: string) => new URL('/', url).toString();
console.log(`BENCH_DATABASE_URL=${base(database.primaryUrl)} BENCH_REPLICA_URLS=${base(database.replicaUrl)} BENCH_REDIS_CLUSTER_NODES=${redis.settings}`);
const stop = () => { void Promise.all([database.stop(), redis.stop()]).then(() => process.exit(0)); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
await new Promise(() => undefined);
