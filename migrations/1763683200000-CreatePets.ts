import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreatePets1763683200000 implements MigrationInterface {
  name = 'CreatePets1763683200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(new Table({
      name: 'pets',
      // SQLite only auto-increments an INTEGER PRIMARY KEY, which is 64-bit there anyway.
      columns: [
        { name: 'id', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        { name: 'name', type: 'varchar', length: '255', isNullable: false },
        { name: 'category_id', type: 'bigint', isNullable: false },
        { name: 'status', type: 'varchar', length: '16', isNullable: false, default: "'available'" },
      ],
      ...(mysql ? { engine: 'InnoDB' } : {}),
    }));
    if (mysql) await queryRunner.query('ALTER TABLE `pets` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    // Serves WHERE status = ? ORDER BY id LIMIT ? without a sort.
    await queryRunner.createIndex('pets', new TableIndex({ name: 'IDX_pets_status_id', columnNames: ['status', 'id'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('pets');
  }
}
