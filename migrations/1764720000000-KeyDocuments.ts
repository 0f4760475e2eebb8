import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Which GraphQL documents a key may send: `any`, `registered` (the trusted manifest's only); NULL: as
 * GRAPHQL_DOCUMENTS says, which every key before followed.
 */
export class KeyDocuments1764720000000 implements MigrationInterface {
  name = 'KeyDocuments1764720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('api_keys', new TableColumn({ name: 'documents', type: 'varchar', length: '16', isNullable: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('api_keys', 'documents');
  }
}
