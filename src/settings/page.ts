import { SECTION_TITLES, SETTINGS, type Declared, type Section, type SettingName } from './declarations.js';

const escape = (cell: string) => cell.replace(/\|/g, '\\|');

/** docs/settings.md: every setting by section, as declared; `npm run schema` writes it, a test holds it. */
export function settingsPage(): string {
  const bySection = new Map<Section, SettingName[]>();
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const { section } = SETTINGS[name] as Declared<unknown>;
    bySection.set(section, [...(bySection.get(section) ?? []), name]);
  }
  const sections = (Object.keys(SECTION_TITLES) as Section[]).filter((section) => bySection.has(section)).map((section) => [
    `## ${SECTION_TITLES[section]}`, '',
    '| Setting | Default | Takes | Meaning |', '|---|---|---|---|',
    ...bySection.get(section)!.map((name) => {
      const { shown, takes, meaning, needs } = SETTINGS[name] as Declared<unknown>;
      return `| \`${name}\` | ${escape(shown)} | ${escape(takes ?? '')} | ${escape(meaning)}${needs ? ` (only with ${needs === 'a Redis' ? 'a Redis' : `\`${needs}\``})` : ''} |`;
    }),
  ].join('\n'));
  return [
    '<!-- Printed by `npm run schema` from src/settings/declarations.ts; test/schema-drift.test.ts holds it. Edit there, not here. -->',
    '# Settings', '',
    'Every setting is an environment variable; an invalid one stops startup with a message naming it, all',
    'problems at once. Left empty, a setting keeps its default. The on/off settings take `true`/`false`,',
    '`1`/`0`, `yes`/`no` or `on`/`off` (\"on or off\" below), in any case, spaces around them ignored; `OTEL_SDK_DISABLED` follows',
    'OpenTelemetry\'s own rule instead (`true` or `false` only). A setting that means something only beside',
    'another is refused when set alone.', '',
    sections.join('\n\n'), '',
  ].join('\n');
}
