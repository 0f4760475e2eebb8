import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateApiKeys1763683300000 implements MigrationInterface {
  name = 'CreateApiKeys1763683300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(new Table({
      name: 'api_keys',
      columns: [
        { name: 'id', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        // SHA-256 of the key, hex: the key itself is never stored.
        { name: 'hash', type: 'varchar', length: '64', isNullable: false },
        { name: 'prefix', type: 'varchar', length: '16', isNullable: false },
        { name: 'name', type: 'varchar', length: '255', isNullable: true },
        { name: 'plan', type: 'varchar', length: '16', isNullable: false },
        { name: 'per_minute', type: 'int', isNullable: true },
        { name: 'per_day', type: 'int', isNullable: true },
        { name: 'created_at', type: 'datetime', isNullable: false },
        { name: 'revoked_at', type: 'datetime', isNullable: true },
      ],
      ...(mysql ? { engine: 'InnoDB' } : {}),
    }));
    if (mysql) await queryRunner.query('ALTER TABLE `api_keys` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    await queryRunner.createIndex('api_keys', new TableIndex({ name: 'UQ_api_keys_hash', columnNames: ['hash'], isUnique: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('api_keys');
  }
}
