import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Idempotency-Key records, where there is no Redis to keep them (the embedded default). */
export class CreateIdempotencyRecords1764028800000 implements MigrationInterface {
  name = 'CreateIdempotencyRecords1764028800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(new Table({
      name: 'idempotency_records',
      columns: [
        // SHA-256 of the API key's id and the Idempotency-Key, hex.
        { name: 'id', type: 'varchar', length: '64', isPrimary: true },
        { name: 'fingerprint', type: 'varchar', length: '64', isNullable: false },
        // The stored response as JSON; null while the first request runs.
        { name: 'response', type: mysql ? 'mediumtext' : 'text', isNullable: true },
        // Unix milliseconds.
        { name: 'expires_at', type: 'bigint', isNullable: false },
      ],
      ...(mysql ? { engine: 'InnoDB' } : {}),
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('idempotency_records');
  }
}
