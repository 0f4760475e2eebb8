import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Restricted keys (their scopes; NULL: every scope, as every key before had), and each key's calls of
 * deprecated fields, so operators can reach its owner before a field is removed.
 */
export class KeyScopesAndDeprecatedCalls1764460800000 implements MigrationInterface {
  name = 'KeyScopesAndDeprecatedCalls1764460800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('api_keys', [
      new TableColumn({ name: 'scopes', type: 'varchar', length: '255', isNullable: true }),
      new TableColumn({ name: 'deprecated_calls', type: 'bigint', default: 0 }),
      new TableColumn({ name: 'last_deprecated_call_at', type: 'datetime', isNullable: true }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('api_keys', 'last_deprecated_call_at');
    await queryRunner.dropColumn('api_keys', 'deprecated_calls');
    await queryRunner.dropColumn('api_keys', 'scopes');
  }
}
