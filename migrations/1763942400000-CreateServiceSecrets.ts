import { randomBytes } from 'node:crypto';
import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Secrets every instance of a deployment shares, made once with the database: the key that signs page
 * cursors, so a cursor from one instance is good on another and a forged one is refused by all.
 */
export class CreateServiceSecrets1763942400000 implements MigrationInterface {
  name = 'CreateServiceSecrets1763942400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(new Table({
      name: 'service_secrets',
      columns: [
        { name: 'name', type: 'varchar', length: '32', isPrimary: true },
        { name: 'value', type: 'varchar', length: '128', isNullable: false },
      ],
      ...(mysql ? { engine: 'InnoDB' } : {}),
    }));
    await queryRunner.query('INSERT INTO service_secrets (name, value) VALUES (?, ?)', ['cursor', randomBytes(32).toString('hex')]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('service_secrets');
  }
}
