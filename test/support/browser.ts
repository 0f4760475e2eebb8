import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium: the tests never download a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface TestBrowser {
  readonly browser: Browser;
  /**
   * A page in a fresh context whose requests to any non-local host fail, as on a machine offline. With
   * `intercept: false` its requests are left alone instead (a page that loads nothing from outside):
   * while Playwright intercepts requests, Chromium's CORS preflights never reach the server, Playwright
   * answers them itself, allowing anything.
   */
  page(options?: { intercept?: boolean }): Promise<Page>;
  /** Every non-local URL a page tried to load. */
  readonly external: string[];
  /** Every Content-Security-Policy violation a page reported, as `directive: blocked URI`. */
  readonly violations: string[];
  close(): Promise<void>;
}

export async function openBrowser(): Promise<TestBrowser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // Without the networking flags Chromium keeps calling Google's hosts, which this network refuses.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const external: string[] = [];
  const violations: string[] = [];
  return {
    browser,
    external,
    violations,
    async page({ intercept = true } = {}) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      if (intercept) await context.route('**/*', (route) => {
        const url = new URL(route.request().url());
        if (LOCAL.has(url.hostname) || url.protocol === 'blob:' || url.protocol === 'data:') return route.continue();
        external.push(url.href);
        return route.abort();
      });
      // The page's own report of each violation, and Chromium's console line for those it reports there only.
      await context.exposeFunction('reportCspViolation', (violation: string) => { violations.push(violation); });
      await context.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          (window as unknown as { reportCspViolation(v: string): void })
            .reportCspViolation(`${event.effectiveDirective}: ${event.blockedURI || 'inline'}`);
        });
      });
      const page = await context.newPage();
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      return page;
    },
    close: () => browser.close(),
  };
}
