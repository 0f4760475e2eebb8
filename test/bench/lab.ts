/**
 * A MariaDB primary and replica of the scale lab's, kept up until Ctrl-C, for `npm run bench` on read
 * replicas (`npx tsx test/bench/lab.ts`, then the printed settings before `npm run bench`).
 */
import { mariadbReplica } from '../scale/lab/mariadb-replica.js';

const lab = await mariadbReplica();
const base = (url: string) => new URL('/', url).toString();
console.log(`BENCH_DATABASE_URL=${base(lab.primaryUrl)} BENCH_REPLICA_URLS=${base(lab.replicaUrl)}`);
const stop = () => { void lab.stop().then(() => process.exit(0)); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
await new Promise(() => undefined);
