import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Pages of the outbox by type (the feed's `type`, a stream's topic) read a range of this index from
 * their position, whatever lies between: a type that is rare among a million events costs what a
 * common one costs.
 */
export class EventsByType1764547200000 implements MigrationInterface {
  name = 'EventsByType1764547200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('events', new TableIndex({ name: 'IDX_events_type_id', columnNames: ['type', 'id'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('events', 'IDX_events_type_id');
  }
}
