import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openBrowser, type TestBrowser } from '../support/browser.js';
import { startServer, type TestServer } from '../support/server.js';
import { REST_ROUTES } from '../../src/rest/routes.js';

let api: TestServer;
let browser: TestBrowser;
beforeAll(async () => {
  [api, browser] = await Promise.all([startServer(), openBrowser()]);
  await api.post('/v1/pets', { name: 'Docs Rex', categoryId: 3 });
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

describe('/v1/docs in a browser, offline', () => {
  it('shows every operation (the spec\'s ten and ours), the deprecated one marked, and runs "try it out" with a key', async () => {
    const page = await browser.page();
    await page.goto(`${api.url}/v1/docs`);
    const operations = page.locator('.opblock');
    await expect.poll(() => operations.count(), { timeout: 15_000 }).toBe(Object.keys(REST_ROUTES).length);
    const summaries = await page.locator('.opblock-summary').allInnerTexts();
    const flat = summaries.map((s) => s.replace(/\s+/g, ' ').trim());
    expect(flat).toEqual(expect.arrayContaining([
      expect.stringMatching(/^GET \/pets\b/), expect.stringMatching(/^POST \/pets\b/), expect.stringMatching(/^GET \/pets\/\{petId\}/),
      expect.stringMatching(/^PATCH \/pets\/\{petId\}/), expect.stringMatching(/^DELETE \/pets\/\{petId\}/),
      expect.stringMatching(/^POST \/store\/orders\b/), expect.stringMatching(/^PATCH \/store\/orders\/\{orderId\}/),
      expect.stringMatching(/^GET \/events\b/), expect.stringMatching(/^POST \/webhooks\b/),
    ]));
    const deprecated = page.locator('.opblock-deprecated');
    expect(await deprecated.count()).toBe(1);
    // Swagger UI strikes the path through: its own class for a deprecated operation.
    expect(await deprecated.locator('.opblock-summary-path__deprecated').getAttribute('data-path')).toBe('/pets/{petId}');
    await page.screenshot({ path: `${ARTIFACTS}rest-docs.png`, fullPage: true });

    // Authorize with the key, then try GET /pets.
    await page.getByRole('button', { name: /Authorize/ }).first().click();
    await page.locator('#auth-bearer-value').fill(api.headers.authorization!.slice('Bearer '.length));
    await page.getByRole('button', { name: 'Apply credentials' }).click();
    await page.locator('.modal-ux').getByRole('button', { name: 'Close' }).click();

    const list = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/pets"]') });
    await list.locator('.opblock-summary').click();
    await list.getByRole('button', { name: 'Try it out' }).click();
    await list.getByRole('button', { name: 'Execute' }).click();
    const live = list.locator('.live-responses-table');
    await expect.poll(async () => (await live.innerText()).replace(/\s+/g, ' '), { timeout: 10_000 }).toContain('Docs Rex');
    expect((await live.locator('tbody .response-col_status').first().innerText()).trim()).toBe('200');
    expect(await live.innerText()).toMatch(/x-ratelimit-remaining/i);
    await list.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}rest-docs-try-it-out.png`, fullPage: true });
    expect(browser.external).toEqual([]);
    expect(browser.violations).toEqual([]);
  });
});
