import { describe, expect, it } from 'vitest';
import { backend, keyOn } from '../../support/backend.js';
import { listeningUrl, spawnedServers } from '../../support/process.js';

const servers = spawnedServers();

interface Outcome { name: string; valid: boolean; status: number; id?: number }

describe(`kill -9 during a burst of concurrent POSTs (${backend})`, () => {
  it('keeps every pet whose 201 was received, and no pet whose request got an error', async () => {
    const { server, store } = await servers.start();
    const url = await listeningUrl(server);
    const headers = { ...(await keyOn(store)), 'content-type': 'application/json' };

    // Ten clients each send one POST after another, so that requests are in flight whenever the kill
    // comes. Two in three are valid pets; the others are refused (400), and must leave nothing behind.
    const outcomes: Outcome[] = [];
    let killed = false;
    // Kill it once some pets have been created: every client then has a request on its way.
    let killTime!: () => void;
    const timeToKill = new Promise<void>((resolve) => { killTime = resolve; });
    const clients = Array.from({ length: 10 }, async (_, client) => {
      for (let n = 0; !killed; n++) {
        const name = `Burst ${client}-${n}`;
        const valid = (client + n) % 3 !== 2;
        const body = valid ? { name, categoryId: 1 } : { name, categoryId: 'not a number' };
        try {
          const response = await fetch(`${url}/v1/pets`, { method: 'POST', headers, body: JSON.stringify(body) });
          const json = await response.json() as { id?: number };
          outcomes.push({ name, valid, status: response.status, id: json.id });
        } catch {
          outcomes.push({ name, valid, status: 0 }); // no answer: the process died with it in flight
          return;
        }
        if (outcomes.filter((o) => o.status === 201).length >= 8) killTime();
      }
    });
    await timeToKill;
    killed = true;
    server.child.kill('SIGKILL');
    await Promise.all(clients);

    const restarted = await servers.restart(store);
    const after = await listeningUrl(restarted);
    const listed = await (await fetch(`${after}/v1/pets?limit=100`, { headers })).json() as { id: number; name: string }[];
    const byName = new Map(listed.map((p) => [p.name, p]));

    const created = outcomes.filter((o) => o.status === 201);
    const refused = outcomes.filter((o) => o.status >= 400);
    const unanswered = outcomes.filter((o) => o.status === 0);
    for (const o of created) expect(byName.get(o.name), o.name).toEqual({ id: o.id, name: o.name, categoryId: 1, status: 'available' });
    for (const o of refused) expect(byName.has(o.name), o.name).toBe(false);
    for (const o of outcomes.filter((x) => !x.valid)) expect(byName.has(o.name), o.name).toBe(false);
    // Every pet there was asked for: nothing is invented or duplicated.
    expect(listed.every((p) => outcomes.some((o) => o.valid && o.name === p.name))).toBe(true);
    expect(new Set(listed.map((p) => p.name)).size).toBe(listed.length);
    expect(created.length).toBeGreaterThan(0);
    expect(unanswered.length).toBeGreaterThan(0); // it died with requests in flight
    console.info(`${backend} kill -9: ${created.length} created (all present), ${refused.length} refused (none present), ${unanswered.length} unanswered (${unanswered.filter((o) => byName.has(o.name)).length} of them committed)`);
  }, 60_000);
});
