import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openBrowser, type TestBrowser } from '../support/browser.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
let browser: TestBrowser;
beforeAll(async () => {
  [api, browser] = await Promise.all([startServer(), openBrowser()]);
  await api.post('/v1/pets', { name: 'Browser Rex', categoryId: 7 });
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

/** Replaces the text of the visible editor in GraphiQL's tool pane (Monaco): what a person pasting does. */
async function setHeaders(page: Page, headers: object) {
  await page.getByRole('button', { name: 'Headers' }).click();
  const editor = page.locator('.graphiql-editor-tool .graphiql-editor:visible .view-lines');
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(JSON.stringify(headers));
}

/** Monaco draws spaces as no-break spaces and wraps long lines: read text as a person would. */
/** Replaces the text of the query editor, as a person pasting a query does. */
async function replaceQuery(page: Page, text: string) {
  await page.locator('.graphiql-query-editor .view-lines').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

const textOf = async (locator: Locator) => (await locator.innerText()).replace(/\u00a0/g, ' ').replace(/\s+/g, ' ');
const response = (page: Page) => textOf(page.locator('.graphiql-response'));

describe('GraphiQL in a browser, offline', () => {
  it('runs a pets query with the key put in its headers editor, with docs and autocompletion', async () => {
    const page = await browser.page();
    await page.goto(`${api.url}/graphql`);
    await page.getByRole('button', { name: 'Headers' }).click();
    // The page offers the Authorization line, waiting for a key.
    await expect.poll(() => textOf(page.locator('.graphiql-editor-tool .graphiql-editor:visible .view-lines')))
      .toContain('"Authorization": "Bearer "');

    await setHeaders(page, { Authorization: api.headers.authorization });
    await page.getByRole('button', { name: /Re-fetch GraphQL schema/ }).click();
    await page.getByRole('button', { name: /Execute query/ }).click();
    await expect.poll(() => response(page), { timeout: 10_000 }).toContain('Browser Rex');
    expect(await response(page)).toContain('"categoryId": 7');
    await page.screenshot({ path: `${ARTIFACTS}graphiql.png` });

    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    const docs = page.locator('.graphiql-doc-explorer');
    await expect.poll(() => textOf(docs)).toMatch(/Query.*Mutation/);
    await docs.getByText('Query', { exact: true }).first().click();
    await expect.poll(() => textOf(docs)).toContain('pets');
    await page.screenshot({ path: `${ARTIFACTS}graphiql-docs.png` });

    // Autocompletion from the schema, in a new tab.
    await page.getByRole('button', { name: 'New tab' }).click();
    const query = page.locator('.graphiql-query-editor .view-lines');
    await query.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ pe');
    const suggestions = page.locator('.suggest-widget.visible');
    await expect.poll(() => textOf(suggestions), { timeout: 10_000 }).toMatch(/pets/);
    await page.screenshot({ path: `${ARTIFACTS}graphiql-autocomplete.png` });
    expect(browser.external).toEqual([]);
    expect(browser.violations).toEqual([]);
  });

  it('runs a query typed over the example at once, without the example\'s operation name', async () => {
    const page = await browser.page();
    await page.goto(`${api.url}/graphql`);
    await setHeaders(page, { Authorization: api.headers.authorization });
    await replaceQuery(page, '{ pets(limit: 1) { name } }');
    // At once, before GraphiQL has read the new operation's name (it still holds ListPets).
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => response(page), { timeout: 10_000 }).toContain('"pets"');
    expect(await response(page)).not.toContain('Cannot infer operation');
    expect(await response(page)).toContain('Browser Rex');
    expect(browser.external).toEqual([]);
    expect(browser.violations).toEqual([]);
  });

  it('runs a subscription: each change appears in the response pane as it happens', async () => {
    const page = await browser.page();
    await page.goto(`${api.url}/graphql`);
    await setHeaders(page, { Authorization: api.headers.authorization });
    await replaceQuery(page, 'subscription { petChanged { kind pet { name } } }');
    // The server listens from the moment it makes the stream, before it answers: once the page has the
    // answer's headers, every later change comes.
    const answered = page.waitForResponse((r) => r.url() === `${api.url}/graphql` && r.request().method() === 'POST'
      && (r.headers()['content-type'] ?? '').startsWith('text/event-stream'));
    await page.keyboard.press('Control+Enter');
    // GraphiQL shows its stop button while the stream is open.
    await expect.poll(() => page.getByRole('button', { name: /Stop/ }).count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await answered).status()).toBe(200);
    await api.post('/v1/pets', { name: 'Live in GraphiQL', categoryId: 7 });
    await expect.poll(() => response(page), { timeout: 10_000 }).toContain('Live in GraphiQL');
    expect(await response(page)).toContain('CREATED');
    await page.screenshot({ path: `${ARTIFACTS}graphiql-subscription.png` });
    expect(browser.external).toEqual([]);
    expect(browser.violations).toEqual([]);
  });

  it('shows the 401 error in the page for a wrong key', async () => {
    const page = await browser.page();
    await page.goto(`${api.url}/graphql`);
    await setHeaders(page, { Authorization: `Bearer ask_${'W'.repeat(43)}` });
    await page.getByRole('button', { name: /Execute query/ }).click();
    await expect.poll(() => response(page), { timeout: 10_000 }).toContain('UNAUTHENTICATED');
    expect(await response(page)).toContain('unknown or revoked');
    await page.screenshot({ path: `${ARTIFACTS}graphiql-401.png` });
    expect(browser.external).toEqual([]);
    expect(browser.violations).toEqual([]);
  });
});
