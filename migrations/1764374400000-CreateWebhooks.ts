import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Webhooks: a key's endpoints, each event's delivery to each endpoint (at most one: the unique pair),
 * and where the fan-out from the outbox stands (one row, locked by the instance that fans out).
 */
export class CreateWebhooks1764374400000 implements MigrationInterface {
  name = 'CreateWebhooks1764374400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    const id = { name: 'id', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' as const };
    const engine = mysql ? { engine: 'InnoDB' } : {};
    await queryRunner.createTable(new Table({
      name: 'webhook_endpoints',
      columns: [
        id,
        { name: 'key_id', type: 'bigint', isNullable: false },
        { name: 'url', type: 'varchar', length: '2048', isNullable: false },
        // The event types it takes, comma-separated; empty for every type.
        { name: 'types', type: 'varchar', length: '255', isNullable: false, default: "''" },
        { name: 'secret', type: 'varchar', length: '64', isNullable: false },
        { name: 'enabled', type: 'boolean', isNullable: false, default: 1 },
        { name: 'disabled_reason', type: 'varchar', length: '255', isNullable: true },
        // It hears the events after this one (the newest when it was made).
        { name: 'after_event_id', type: 'bigint', isNullable: false },
        // Unix ms of its first failure since its last success; null while it succeeds.
        { name: 'failing_since', type: 'bigint', isNullable: true },
        { name: 'created_at', type: 'bigint', isNullable: false },
      ],
      ...engine,
    }));
    await queryRunner.createIndex('webhook_endpoints', new TableIndex({ name: 'IDX_webhook_endpoints_key', columnNames: ['key_id'] }));
    await queryRunner.createTable(new Table({
      name: 'webhook_deliveries',
      columns: [
        id,
        { name: 'endpoint_id', type: mysql ? 'bigint' : 'integer', isNullable: false },
        // Null for a test event.
        { name: 'event_id', type: 'bigint', isNullable: true },
        { name: 'type', type: 'varchar', length: '32', isNullable: false },
        // The body sent, kept with the delivery: retries outlive the outbox's retention.
        { name: 'payload', type: 'text', isNullable: false },
        // pending, delivered, failed
        { name: 'status', type: 'varchar', length: '16', isNullable: false },
        { name: 'attempts', type: 'int', isNullable: false, default: 0 },
        // When it is due (Unix ms); while an instance sends it, when its claim lapses.
        { name: 'next_attempt_at', type: 'bigint', isNullable: false },
        { name: 'last_status_code', type: 'int', isNullable: true },
        { name: 'last_error', type: 'varchar', length: '255', isNullable: true },
        { name: 'last_duration_ms', type: 'int', isNullable: true },
        { name: 'created_at', type: 'bigint', isNullable: false },
        { name: 'delivered_at', type: 'bigint', isNullable: true },
      ],
      ...engine,
    }));
    await queryRunner.createIndex('webhook_deliveries', new TableIndex({ name: 'UQ_webhook_deliveries_endpoint_event', columnNames: ['endpoint_id', 'event_id'], isUnique: true }));
    await queryRunner.createIndex('webhook_deliveries', new TableIndex({ name: 'IDX_webhook_deliveries_due', columnNames: ['status', 'next_attempt_at'] }));
    await queryRunner.createForeignKey('webhook_deliveries', new TableForeignKey({
      name: 'FK_webhook_deliveries_endpoint', columnNames: ['endpoint_id'], referencedTableName: 'webhook_endpoints', referencedColumnNames: ['id'], onDelete: 'CASCADE',
    }));
    await queryRunner.createTable(new Table({
      name: 'webhook_fanout',
      columns: [
        { name: 'id', type: 'int', isPrimary: true },
        { name: 'last_event_id', type: 'bigint', isNullable: false },
      ],
      ...engine,
    }));
    await queryRunner.query('INSERT INTO webhook_fanout (id, last_event_id) SELECT 1, COALESCE(MAX(id), 0) FROM events');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_fanout');
    await queryRunner.dropTable('webhook_deliveries');
    await queryRunner.dropTable('webhook_endpoints');
  }
}
