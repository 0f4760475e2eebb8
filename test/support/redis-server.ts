import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import type { AddressInfo } from 'node:net';

const freePort = () => new Promise<number>((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    server.close(() => resolve(port));
  });
});

const answers = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect(port, '127.0.0.1');
  socket.once('connect', () => socket.write('PING\r\n'));
  socket.once('data', (data) => { socket.destroy(); resolve(data.toString().startsWith('+PONG')); });
  socket.once('error', () => resolve(false));
});

/** A redis-server of the test's own, on a port of its own, that the test may kill, restart or freeze. */
export async function ownRedis() {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; i < 200 && !(await answers(port)); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    /** Gone at once, as a crashed host: connections close. */
    async kill() {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child!.kill('SIGKILL');
      await exited;
    },
    start,
    /** Hung: connections stay open and nothing answers. */
    freeze: () => { child!.kill('SIGSTOP'); },
    thaw: () => { child!.kill('SIGCONT'); },
    async stop() {
      if (child && child.exitCode === null && child.signalCode === null) { child.kill('SIGCONT'); await this.kill(); }
    },
  };
}
