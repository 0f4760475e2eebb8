import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Deliveries asked for by hand (a test event, a redelivery) and not attempted since are marked, so an
 * endpoint's owner can be held to a few at a time. The due index carries the endpoint: a claim that skips
 * endpoints with no slot free filters on the index alone, however many deliveries those have waiting.
 */
export class WebhookDeliveriesOnRequest1764550800000 implements MigrationInterface {
  name = 'WebhookDeliveriesOnRequest1764550800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('webhook_deliveries', new TableColumn({ name: 'on_request', type: 'boolean', isNullable: false, default: 0 }));
    await queryRunner.dropIndex('webhook_deliveries', 'IDX_webhook_deliveries_due');
    await queryRunner.createIndex('webhook_deliveries', new TableIndex({ name: 'IDX_webhook_deliveries_due', columnNames: ['status', 'next_attempt_at', 'endpoint_id'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('webhook_deliveries', 'IDX_webhook_deliveries_due');
    await queryRunner.createIndex('webhook_deliveries', new TableIndex({ name: 'IDX_webhook_deliveries_due', columnNames: ['status', 'next_attempt_at'] }));
    await queryRunner.dropColumn('webhook_deliveries', 'on_request');
  }
}
