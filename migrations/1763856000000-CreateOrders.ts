import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateOrders1763856000000 implements MigrationInterface {
  name = 'CreateOrders1763856000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(new Table({
      name: 'orders',
      columns: [
        { name: 'id', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        { name: 'pet_id', type: 'bigint', isNullable: false },
        { name: 'status', type: 'varchar', length: '16', isNullable: false },
        // UTC, to the millisecond; SQLite keeps the RFC 3339 text itself.
        { name: 'placed_at', type: mysql ? 'datetime' : 'varchar', ...(mysql ? { precision: 3 } : { length: '24' }), isNullable: false },
      ],
      // A pet with orders cannot be deleted: the store checks first, the key is the last word.
      foreignKeys: [{ name: 'FK_orders_pet', columnNames: ['pet_id'], referencedTableName: 'pets', referencedColumnNames: ['id'], onDelete: 'RESTRICT' }],
      indices: [
        // Serves Pet.orders (WHERE pet_id IN (...) ORDER BY id) and the delete check.
        { name: 'IDX_orders_pet_id', columnNames: ['pet_id', 'id'] },
        // Serves WHERE status = ? ORDER BY id LIMIT ? without a sort.
        { name: 'IDX_orders_status_id', columnNames: ['status', 'id'] },
      ],
      ...(mysql ? { engine: 'InnoDB' } : {}),
    }), false, true, true);
    if (mysql) await queryRunner.query('ALTER TABLE `orders` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('orders', true, true, true);
  }
}
