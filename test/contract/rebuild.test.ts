import { readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HELD, holdImport } from '../support/hold-import.js';
import { listeningUrl, spawnedServers } from '../support/process.js';
import { scratchCheckout, type ScratchCheckout } from '../support/scratch-checkout.js';

// Removed after its servers are stopped: vitest runs the hooks after a test in the reverse order.
let checkout: ScratchCheckout;
beforeEach(async () => {
  checkout = scratchCheckout();
  await checkout.build();
});
afterEach(() => checkout.remove());
const servers = spawnedServers();

/**
 * A line more at the top of the migrations' runner moves every line of it in its chunk's source map:
 * the chunk gets a new name, and so does each chunk that imports it, up to the entry.
 */
const change = () => checkout.edit('src/db/migrate.ts', (source) => `\n${source}`);
/** Makes every file of the bundle look as if no build had written it for two days. */
const ageBundle = () => {
  const dir = join(checkout.dir, 'dist/bundle');
  const then = new Date(Date.now() - 2 * 24 * 3_600_000);
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) utimesSync(join(dir, name), then, then);
};
const migrationChunks = () => readdirSync(join(checkout.dir, 'dist/bundle/chunks')).filter((name) => /^migrate-\w+\.mjs$/.test(name));

describe('a build in the checkout of running instances', () => {
  it('keeps the chunks an instance started from the last build has yet to import', async () => {
    // Startup imports the migrations' chunk after the entry's and the server's: held there, the instance
    // has read its entry, and the rebuild comes before it looks for the rest.
    const hold = holdImport(/\/migrate-\w+\.mjs$/, checkout.dir);
    const { server } = await servers.start({}, { cwd: checkout.dir, nodeArgs: hold.nodeArgs });
    const [, held] = HELD.exec(await server.waitFor(HELD))!;
    // However long ago it was built: the entry a build replaces is kept whole, by what it imports.
    ageBundle();
    change();
    await checkout.build();
    // The change did rename it: the held import is of a chunk the new entry no longer names.
    expect(migrationChunks().filter((name) => `./${name}` !== held)).toHaveLength(1);

    hold.release();
    const url = await listeningUrl(server);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('starts an instance while builds of changed code run beside it, two at once', async () => {
    let starting = true;
    let builds = 0;
    const rebuild = async () => {
      for (; starting; builds += 1) {
        change();
        await checkout.build();
      }
    };
    const rebuilding = [rebuild(), rebuild()];
    const { server } = await servers.start({}, { cwd: checkout.dir });
    try {
      await listeningUrl(server);
    } finally {
      starting = false;
      await Promise.allSettled(rebuilding);
    }
    await Promise.all(rebuilding);
    expect(builds).toBeGreaterThanOrEqual(2);
    expect((await fetch(`${await listeningUrl(server)}/healthz`)).status).toBe(200);

    // What the last of the builds left is whole.
    const { server: next } = await servers.start({}, { cwd: checkout.dir });
    expect((await fetch(`${await listeningUrl(next)}/healthz`)).status).toBe(200);
  });
});
