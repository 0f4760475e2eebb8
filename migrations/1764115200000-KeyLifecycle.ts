import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Keys that expire (or are rolled with an overlap), and when each was last used. */
export class KeyLifecycle1764115200000 implements MigrationInterface {
  name = 'KeyLifecycle1764115200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('api_keys', [
      new TableColumn({ name: 'expires_at', type: 'datetime', isNullable: true }),
      new TableColumn({ name: 'last_used_at', type: 'datetime', isNullable: true }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('api_keys', 'last_used_at');
    await queryRunner.dropColumn('api_keys', 'expires_at');
  }
}
