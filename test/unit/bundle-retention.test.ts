import { describe, expect, it } from 'vitest';
import { importsOf, KEPT_FOR_MS, prunable } from '../../scripts/bundle-retention.js';

describe('importsOf', () => {
  it('finds the static, bare and dynamic imports esbuild writes, and nothing from node_modules', () => {
    const entry = 'import"./chunks/chunk-YWLW6XQR.mjs";import module from"node:module";await import("./chunks/main-BS7545YC.mjs");';
    const chunk = 'import{a as b}from"./chunk-VC2MIV4E.mjs";import{c}from"graphql";const d=()=>import("./start-O6NBYMS6.mjs");'
      + 'const e=await import("../bundle/chunks/server-2LQ5DWBS.mjs");';
    expect(importsOf(entry)).toEqual(['./chunks/chunk-YWLW6XQR.mjs', './chunks/main-BS7545YC.mjs']);
    expect(importsOf(chunk)).toEqual(['./chunk-VC2MIV4E.mjs', './start-O6NBYMS6.mjs', '../bundle/chunks/server-2LQ5DWBS.mjs']);
  });
});

describe('prunable', () => {
  const now = Date.UTC(2026, 10, 29);
  const old = now - KEPT_FOR_MS - 1;

  it('deletes what nothing keeps and no build has written or replaced for a day', () => {
    const files = [
      { path: 'chunks/server-OLD.mjs', mtimeMs: old },
      { path: 'chunks/server-OLD.mjs.map', mtimeMs: old },
      { path: 'chunks/.server-NEW.mjs.123-ab12cd34.tmp', mtimeMs: old },
      { path: 'chunks/server-RECENT.mjs', mtimeMs: now - KEPT_FOR_MS + 1 },
      { path: 'chunks/.server-NEW.mjs.456-ef56ab78.tmp', mtimeMs: now },
    ];
    expect(prunable(files, new Set(), now)).toEqual(['chunks/server-OLD.mjs', 'chunks/server-OLD.mjs.map', 'chunks/.server-NEW.mjs.123-ab12cd34.tmp']);
  });

  it('keeps the new build and the entry it replaced, however old', () => {
    const files = [{ path: 'server.mjs', mtimeMs: old }, { path: 'chunks/main-A.mjs', mtimeMs: old }, { path: 'chunks/main-A.mjs.map', mtimeMs: old }];
    expect(prunable(files, new Set(files.map((file) => file.path)), now)).toEqual([]);
  });
});
