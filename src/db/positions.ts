/**
 * A write's position in the primary's history (a GTID), as the server reports it in the OK packet of the
 * write, or of the COMMIT of its transaction: no extra round trip. Each server is asked to report it on
 * every connection of the primary's pool (`TRACK_POSITIONS`); each ignores the other's statement by failing it.
 * - MariaDB: the session variable `last_gtid` (`0-1-504`), reported because it is tracked.
 * - MySQL 8: the transaction's own GTID (`3e11fa47-71ca-11e1-9e33-c80aa9429562:23`), with `gtid_mode=ON`.
 */
export const TRACK_POSITIONS = [
  "SET SESSION session_track_system_variables = CONCAT_WS(',', NULLIF(@@session_track_system_variables, ''), 'last_gtid')",
  'SET SESSION session_track_gtids = OWN_GTID',
];

/** A key's last write as its reads must see it: a position to wait for, or the primary when it is unknown. */
export type ReadAfter = string | typeof ON_PRIMARY;
export const ON_PRIMARY = Symbol('on the primary');

/** What mysql2 parses from an OK packet's session-state block. */
interface StateChanges {
  readonly systemVariables?: Readonly<Record<string, string>>;
  readonly gtids?: readonly string[];
}

/** The GTID a write's OK packet reported, or undefined when it reported none (the server tracks none). */
export function positionOf(result: unknown): string | undefined {
  const changes = (result as { stateChanges?: StateChanges } | null)?.stateChanges;
  if (!changes) return undefined;
  const mariadb = changes.systemVariables?.last_gtid;
  if (mariadb) return mariadb;
  const mysql = changes.gtids?.filter(Boolean).join(',');
  return mysql || undefined;
}

/** MariaDB's GTID list (`domain-server-sequence`, comma separated); anything else is MySQL's GTID set. */
const MARIADB_POSITION = /^\d+-\d+-\d+(,\d+-\d+-\d+)*$/;

/**
 * The statement that waits on a replica until it has applied `position`, up to a timeout in seconds.
 * `reached` reads its answer: MariaDB's MASTER_GTID_WAIT gives 0 when reached, -1 on timeout; MySQL's
 * WAIT_FOR_EXECUTED_GTID_SET 0 and 1; both NULL when replication is not running.
 */
export function waitFor(position: string): { readonly sql: string; reached(row: Record<string, unknown> | undefined): boolean } {
  const sql = MARIADB_POSITION.test(position)
    ? 'SELECT MASTER_GTID_WAIT(?, ?) AS answer'
    : 'SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?) AS answer';
  return { sql, reached: (row) => row?.answer !== null && row?.answer !== undefined && Number(row.answer) === 0 };
}
