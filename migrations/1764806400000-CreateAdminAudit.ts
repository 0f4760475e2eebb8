import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Every call of the admin API and of the keys command: who, what, when, from where. */
export class CreateAdminAudit1764806400000 implements MigrationInterface {
  name = 'CreateAdminAudit1764806400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(new Table({
      name: 'admin_audit',
      columns: [
        { name: 'id', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        // Unix milliseconds.
        { name: 'at', type: 'bigint', isNullable: false },
        // The operator's name (ADMIN_TOKENS), or `cli:<user>` for the keys command.
        { name: 'actor', type: 'varchar', length: '80', isNullable: false },
        // key.create, key.list, key.show, key.revoke, key.roll, key.usage, audit.list
        { name: 'action', type: 'varchar', length: '32', isNullable: false },
        { name: 'key_id', type: mysql ? 'bigint' : 'integer', isNullable: true },
        // The client's address, or `local` for the keys command.
        { name: 'origin', type: 'varchar', length: '64', isNullable: false },
        { name: 'request_id', type: 'varchar', length: '64', isNullable: true },
        // The HTTP status (or the command's outcome): a refused call is recorded too.
        { name: 'outcome', type: 'int', isNullable: false },
      ],
      indices: [new TableIndex({ name: 'IDX_admin_audit_key', columnNames: ['key_id'] })],
      ...(mysql ? { engine: 'InnoDB' } : {}),
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('admin_audit');
  }
}
