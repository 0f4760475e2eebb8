import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SETTINGS, settingsNeeding, type SettingName } from '../../src/settings/declarations.js';

const ROOT = new URL('../../', import.meta.url);
const configFiles = ['src/config.ts', ...readdirSync(new URL('src/config/', ROOT)).map((file) => `src/config/${file}`)];

describe('the settings\' one list', () => {
  it('declares every variable the configuration reads', () => {
    const read = new Set<string>();
    for (const file of configFiles) {
      const text = readFileSync(new URL(file, ROOT), 'utf8');
      for (const [, name] of text.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)) read.add(name!);
      // Names listed in arrays the code reads env by (the Redis topologies, the OTLP endpoints).
      for (const [, name] of text.matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)) read.add(name!);
    }
    expect([...read].filter((name) => !(name in SETTINGS))).toEqual([]);
    expect(read.size).toBeGreaterThan(8);
  });

  it('gives every integer setting\'s declared default when it is unset', () => {
    const config = loadConfig({});
    expect(config.port).toBe(SETTINGS.PORT.default);
    expect(config.rateLimits.banThreshold).toBe(SETTINGS.BAN_THRESHOLD.default);
    expect(config.webhooks.timeoutMs).toBe(SETTINGS.WEBHOOK_TIMEOUT_SECONDS.default * 1_000);
    expect(config.operationLimits.maxNodes).toBe(SETTINGS.GRAPHQL_MAX_NODES.default);
  });

  it('refuses, by name, each setting that needs another when it is set alone', () => {
    for (const needs of ['a Redis', 'REDIS_SENTINELS', 'DATABASE_REPLICA_URLS'] as const) {
      const orphans: SettingName[] = settingsNeeding(needs);
      expect(orphans.length).toBeGreaterThan(0);
      for (const name of orphans) {
        const env = { [name]: name === 'REDIS_TLS' ? 'true' : name.endsWith('_MS') || name.endsWith('_SECONDS') ? '30' : 'x' };
        expect(() => loadConfig(env), name).toThrow(new RegExp(`${name}.* set without`));
      }
    }
  });
});
