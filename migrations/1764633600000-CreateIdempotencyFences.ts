import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A fence per write made under an Idempotency-Key, committed in the write's own transaction: a retry
 * whose first try committed without an answer finds it and writes nothing again.
 */
export class CreateIdempotencyFences1764633600000 implements MigrationInterface {
  name = 'CreateIdempotencyFences1764633600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(new Table({
      name: 'idempotency_fences',
      columns: [
        // The claim's id (SHA-256 hex of the API key's id and the Idempotency-Key), a dot, the write's place in its request.
        { name: 'id', type: 'varchar', length: '80', isPrimary: true },
        // Unix milliseconds.
        { name: 'expires_at', type: 'bigint', isNullable: false },
      ],
      indices: [new TableIndex({ name: 'IDX_idempotency_fences_expires_at', columnNames: ['expires_at'] })],
      ...(mysql ? { engine: 'InnoDB' } : {}),
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('idempotency_fences');
  }
}
