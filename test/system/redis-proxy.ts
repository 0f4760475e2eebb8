import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

export interface RedisProxy {
  /** For the instance's REDIS_URL. */
  readonly url: string;
  /**
   * For `ms`, holds every byte both ways on every connection, open or opened meanwhile: nothing is
   * delivered and nothing refused, as when a network drops packets and TCP retransmits. Then delivers
   * what it held. Resolves when it is over.
   */
  blackhole(ms: number): Promise<void>;
  /** Closes the listener and every connection. */
  stop(): Promise<void>;
}

interface Address {
  readonly host: string;
  readonly port: number;
}

/**
 * The path between ONE instance and Redis, which a fault can cut without touching Redis or the other
 * instances: the only way to make a partition on loopback without root (no iptables, no tc).
 *
 * Why that instance is given `REDIS_URL` (this proxy) and not `REDIS_SENTINELS`: through Sentinel the
 * service connects wherever Sentinel names as master, and cannot be told to go through a proxy. So the
 * proxy asks the Sentinels itself, on every connection it is given, and the instance sees one plain
 * Redis. A failover still reaches the instance: the killed master's connections close, the proxy closes
 * the instance's side of them, the instance reconnects, and the proxy asks Sentinel again. What the
 * instance loses: it does not know its Redis has replicas, so its idempotency claims do not wait for one
 * (`WAIT 1`); the other instances' do.
 */
export async function redisProxy(sentinels: string, master: string): Promise<RedisProxy> {
  const nodes = addresses(sentinels);
  const every = new Set<Socket>();
  const linked = new Set<Socket>();
  let holds = 0;
  const server = createServer({ pauseOnConnect: true }, (client) => {
    track(every, client);
    void open(client);
  });

  /** The client's socket stays paused (pauseOnConnect) until it is linked: not a byte is read before. */
  async function open(client: Socket): Promise<void> {
    const address = await findMaster(nodes, master);
    if (!address || client.destroyed) {
      client.destroy();
      return;
    }
    const upstream = connect(address).pause();
    track(every, upstream);
    closeTogether(client, upstream);
    upstream.once('connect', () => {
      for (const socket of [client, upstream]) track(linked, socket);
      forward(client, upstream, () => holds > 0);
      forward(upstream, client, () => holds > 0);
      if (holds === 0) for (const socket of [client, upstream]) socket.resume();
    });
  }

  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async blackhole(ms) {
      // Paused, a socket reads nothing more: what arrives waits in its buffers and the kernel's.
      holds++;
      for (const socket of linked) socket.pause();
      await sleep(ms);
      holds--;
      if (holds === 0) for (const socket of linked) socket.resume();
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of every) socket.destroy();
      await closed;
    },
  };
}

const addresses = (list: string): Address[] => list.split(',').map((item) => {
  const at = item.lastIndexOf(':');
  return { host: item.slice(0, at), port: Number(item.slice(at + 1)) };
});

/** A set that forgets a socket once it has closed. */
function track(set: Set<Socket>, socket: Socket): void {
  set.add(socket);
  socket.once('close', () => set.delete(socket));
}

/** Bytes of `from` written to `to`, at the pace `to` takes them; never read while `held()`. */
function forward(from: Socket, to: Socket, held: () => boolean): void {
  from.on('data', (chunk: Buffer) => {
    if (!to.write(chunk)) from.pause();
  });
  to.on('drain', () => {
    if (!held()) from.resume();
  });
}

/**
 * When either side closes, the other is closed too: after what it was given has been written, unless
 * the first broke (then at once). Errors end in 'close'; handled here so none is thrown.
 */
function closeTogether(a: Socket, b: Socket): void {
  for (const [one, other] of [[a, b], [b, a]] as const) {
    one.on('error', () => undefined);
    one.once('close', (hadError) => {
      if (hadError) other.destroy();
      else if (!other.destroyed) other.end(() => other.destroy());
    });
  }
}

/**
 * The master, as the first Sentinel that answers names it, once that node says it is master: a Sentinel
 * that has not heard of a failover yet names the old one, perhaps back as a replica.
 */
async function findMaster(sentinels: readonly Address[], name: string): Promise<Address | undefined> {
  for (const sentinel of sentinels) {
    const named = await ask(sentinel, (client) => client.call('SENTINEL', 'get-master-addr-by-name', name));
    if (!Array.isArray(named) || named.length !== 2) continue;
    const address = { host: String(named[0]), port: Number(named[1]) };
    const role = await ask(address, (client) => client.role());
    if (Array.isArray(role) && role[0] === 'master') return address;
  }
  return undefined;
}

/** One question to one node on a connection of its own; no answer in time is undefined, never an error. */
async function ask<T>(node: Address, question: (client: Redis) => Promise<T>): Promise<T | undefined> {
  const client = new Redis({
    ...node, lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, connectTimeout: 500, commandTimeout: 500,
    retryStrategy: () => null,
  }).on('error', () => undefined);
  try {
    await client.connect();
    return await question(client);
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}
