import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The outbox: every change's event, written in the change's own transaction, so that an event exists
 * exactly when its change was committed. Ids only grow (SQLite's AUTOINCREMENT never reuses one); they
 * are the events' order for readers, who must allow for a lower id committing after a higher one.
 */
export class CreateEvents1764201600000 implements MigrationInterface {
  name = 'CreateEvents1764201600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(new Table({
      name: 'events',
      columns: [
        { name: 'id', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        // pet.created, pet.updated, pet.deleted, order.created, order.updated
        { name: 'type', type: 'varchar', length: '32', isNullable: false },
        // Unix milliseconds.
        { name: 'occurred_at', type: 'bigint', isNullable: false },
        // What the GraphQL event types carry: {"kind": …, "pet": {…}} or {"kind": …, "order": {…}}.
        { name: 'payload', type: 'text', isNullable: false },
      ],
      ...(mysql ? { engine: 'InnoDB' } : {}),
    }));
    // Pruning finds the events past their retention by time (each instance's clock writes its own).
    await queryRunner.createIndex('events', new TableIndex({ name: 'IDX_events_occurred_at', columnNames: ['occurred_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('events');
  }
}
