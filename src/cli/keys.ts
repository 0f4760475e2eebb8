/**
 * `npm run --silent keys -- create|revoke|list`: API keys, against the database the server uses
 * (DATABASE_URL or DATA_DIR). Exit codes: 0 done, 1 no such key or the database failed, 2 bad usage.
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { keyAdministration, keyView, type Actor, type KeyAdministration } from '../admin/key-administration.js';
import { KeyAdminError, parseDuration, parseInstant } from '../auth/key-admin.js';
import { ConfigError, loadConfig } from '../config.js';
import { adminAudit } from '../db/admin-audit.js';
import { apiKeyStore } from '../db/api-keys.js';
import { createDataSource } from '../db/data-source.js';
import { migrate, migrator } from '../db/migrate.js';
import { limitsOf, PLAN_NAMES } from '../domain/plans.js';
import { SCOPES } from '../domain/scopes.js';

const HELP = `Manage API keys.

Usage:
  npm run --silent keys -- create --plan ${PLAN_NAMES.join('|')} [--per-minute N --per-day N] [--name NAME]
                             [--expires-in 90d | --expires-at 2027-03-01T00:00:00Z] [--scopes pets:read,orders:read]
                             [--documents any|registered]
      Prints the new key as the last line of standard output. It is shown this once only.
      --scopes restricts the key to what they allow (${SCOPES.join(', ')}), comma- or
      space-separated; a call outside them is 403 FORBIDDEN. Without it the key may call everything.
      --documents registered: the key's GraphQL requests run only the trusted documents (the
      PERSISTED_DOCUMENTS_FILE manifest's, by documentId or hash); any: any document, text included
      (GraphiQL, introspection), whatever GRAPHQL_DOCUMENTS says. Without it, as GRAPHQL_DOCUMENTS says.
      --per-minute and --per-day are required for enterprise, refused for the other plans.
      An expired key is refused (401) with a message that says it expired.
  npm run --silent keys -- roll <id|key> [--overlap 24h]
      A new key with the same plan, limits, name, scopes and documents (printed as the last line); the old one keeps
      working until the overlap ends (default 24h; 0: at once).
  npm run --silent keys -- revoke <id|key>
      Stops the key working: on every instance within KEY_CACHE_TTL_SECONDS.
  npm run --silent keys -- list [--json]
      Every key: id, prefix, name, plan, limits, scopes, documents, standing, created, expires, revoked, last used (to the
      minute), and its calls of deprecated fields (how many, the last; written every 10 s).
      Never the key or its hash.

Uses the same database as the server: DATABASE_URL, or the SQLite file in DATA_DIR.
Exit codes: 0 done, 1 no such key or the database failed, 2 bad usage.`;

const USAGE = 2;
const FAILED = 1;

function count(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new KeyAdminError(`${flag} must be a whole number, got "${raw}"`);
  return Number(raw);
}

/** Who the audit log says made the command's calls. */
const actor: Actor = { name: `cli:${userName()}`, origin: 'local' };

function userName(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

async function run(command: string | undefined, args: string[], store: () => Promise<KeyAdministration>): Promise<number> {
  switch (command) {
    case 'create': {
      const { values } = parseArgs({ args, options: {
        plan: { type: 'string' }, 'per-minute': { type: 'string' }, 'per-day': { type: 'string' }, name: { type: 'string' },
        'expires-in': { type: 'string' }, 'expires-at': { type: 'string' }, scopes: { type: 'string' },
        documents: { type: 'string' },
      } });
      if (!values.plan) throw new KeyAdminError(`--plan is required: ${PLAN_NAMES.join(', ')}`);
      if (values['expires-in'] !== undefined && values['expires-at'] !== undefined) throw new KeyAdminError('Give --expires-in or --expires-at, not both');
      const lifetime = values['expires-in'] === undefined ? undefined : parseDuration('--expires-in', values['expires-in']);
      if (lifetime === 0) throw new KeyAdminError('--expires-in must be longer than 0');
      const expiresAt = lifetime !== undefined ? new Date(Math.ceil((Date.now() + lifetime) / 1000) * 1000)
        : values['expires-at'] !== undefined ? parseInstant('--expires-at', values['expires-at']) : undefined;
      const request = {
        plan: values.plan, name: values.name, expiresAt,
        perMinute: count('--per-minute', values['per-minute']), perDay: count('--per-day', values['per-day']), scopes: values.scopes,
        documents: values.documents,
      };
      const { key, record } = await (await store()).create(actor, request);
      const { perMinute, perDay } = limitsOf(record);
      console.error(`Created key ${record.id} (${record.prefix}…) on the ${record.plan} plan: ${perMinute}/minute, ${perDay}/day`
        + `${record.expiresAt ? `, until ${record.expiresAt.toISOString()}` : ''}`
        + `${record.scopes ? `, scopes ${record.scopes}` : ''}`
        + `${record.documents ? `, GraphQL documents: ${record.documents}` : ''}.`);
      console.error('This is the only time the key is shown; store it now:');
      console.log(key);
      return 0;
    }
    case 'revoke': {
      const { positionals } = parseArgs({ args, allowPositionals: true });
      if (positionals.length !== 1) throw new KeyAdminError('Give exactly one key id or key to revoke');
      const revoked = await (await store()).revoke(actor, positionals[0]!);
      if (!revoked) {
        console.error(`No key ${positionals[0]!.slice(0, 12)}`);
        return FAILED;
      }
      const { record } = revoked;
      console.log(revoked.alreadyRevoked ? `Key ${record.id} (${record.prefix}…) was already revoked.` : `Revoked key ${record.id} (${record.prefix}…).`);
      return 0;
    }
    case 'roll': {
      const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { overlap: { type: 'string' } } });
      if (positionals.length !== 1) throw new KeyAdminError('Give exactly one key id or key to roll');
      const rolled = await (await store()).roll(actor, positionals[0]!, parseDuration('--overlap', values.overlap ?? '24h'));
      if (!rolled) {
        console.error(`No key ${positionals[0]!.slice(0, 12)}`);
        return FAILED;
      }
      console.error(`Rolled key ${rolled.old.id} (${rolled.old.prefix}…) into key ${rolled.record.id} (${rolled.record.prefix}…); `
        + `the old one works until ${rolled.oldEndsAt.toISOString()}.`);
      console.error('This is the only time the new key is shown; store it now:');
      console.log(rolled.key);
      return 0;
    }
    case 'list': {
      const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
      const rows = (await (await store()).list(actor)).map((key) => keyView(key));
      if (values.json) console.log(JSON.stringify(rows, null, 2));
      else if (rows.length === 0) console.log('No keys yet: npm run --silent keys -- create --plan free');
      else console.table(rows);
      return 0;
    }
    case undefined: case 'help': case '--help': case '-h':
      console.log(HELP);
      return command === undefined ? USAGE : 0;
    default:
      throw new KeyAdminError(`Unknown command "${command}"`);
  }
}

async function main(): Promise<number> {
  const [command, ...args] = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(HELP);
    return 0;
  }
  const config = loadConfig();
  let close = async () => {};
  try {
    return await run(command, args, async () => {
      // Migrated as the server migrates at startup (no statement deadline), then opened as the server opens it.
      const migrating = await migrator(config.database).initialize();
      try {
        await migrate(migrating);
      } finally {
        await migrating.destroy();
      }
      const dataSource = await createDataSource(config.database).initialize();
      close = () => dataSource.destroy();
      return keyAdministration(apiKeyStore(dataSource), adminAudit(dataSource, Date.now));
    });
  } finally {
    await close();
  }
}

main().then((code) => { process.exitCode = code; }, (error: unknown) => {
  const usage = error instanceof KeyAdminError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  console.error(usage ? `${(error as Error).message}\nSee: npm run --silent keys -- --help` : `Failed: ${(error as Error).message}`);
  process.exitCode = usage ? USAGE : FAILED;
});
