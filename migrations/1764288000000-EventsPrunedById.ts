import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox is pruned by id (the lowest ids first, so that the oldest id kept says exactly what went):
 * the index on the time finds nothing any more, and every event paid for it.
 */
export class EventsPrunedById1764288000000 implements MigrationInterface {
  name = 'EventsPrunedById1764288000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('events', 'IDX_events_occurred_at');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX IDX_events_occurred_at ON events (occurred_at)');
  }
}
