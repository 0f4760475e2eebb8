import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The end users (and machine clients) who call with access tokens: each subject, once seen, gets an id that
 * everything a key's id keys (limits, owned records, idempotency records) takes as its own, negated, so
 * that it can never meet a key's.
 */
export class CreateTokenSubjects1764892800000 implements MigrationInterface {
  name = 'CreateTokenSubjects1764892800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(new Table({
      name: 'token_subjects',
      columns: [
        { name: 'id', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        // SHA-256 (hex) of the issuer and the subject: the unique key, of a fixed length whatever they are.
        { name: 'hash', type: 'varchar', length: '64', isNullable: false, isUnique: true },
        { name: 'issuer', type: 'varchar', length: '255', isNullable: false },
        { name: 'subject', type: 'varchar', length: '255', isNullable: false },
        { name: 'created_at', type: 'datetime', isNullable: false },
      ],
      ...(mysql ? { engine: 'InnoDB' } : {}),
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('token_subjects');
  }
}
