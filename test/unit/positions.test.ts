import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { positionOf, waitFor } from '../../src/db/positions.js';

// mysql2's own OK-packet parser, as it reads every write's answer (not exported: loaded by its path).
const require = createRequire(import.meta.url);
const packets = join(dirname(require.resolve('mysql2')), 'lib', 'packets');
const Packet = require(join(packets, 'packet.js'));
const ResultSetHeader = require(join(packets, 'resultset_header.js'));
const CLIENT_PROTOCOL_41 = 0x200;
const CLIENT_SESSION_TRACK = 0x800000;

/** An OK packet (its 4-byte header included) as mysql2 parses it on a connection that asked for session tracking. */
const parse = (hex: string) => {
  const buffer = Buffer.from(hex, 'hex');
  const connection = {
    config: { bigNumberStrings: false }, serverEncoding: 'utf8', _handshakePacket: { capabilityFlags: CLIENT_PROTOCOL_41 | CLIENT_SESSION_TRACK },
  };
  return new ResultSetHeader(new Packet(1, buffer, 0, buffer.length), connection);
};

const lenenc = (text: string) => Buffer.concat([Buffer.from([Buffer.byteLength(text)]), Buffer.from(text)]);

/**
 * MySQL 8's OK packet after a write with `session_track_gtids = OWN_GTID`, built as the protocol gives it
 * (no MySQL 8 on this machine to record one): header 0x00, affected rows, insert id, status with
 * SERVER_SESSION_STATE_CHANGED, no warnings, empty info, then the state block: SESSION_TRACK_GTIDS (3),
 * its length, the encoding specification (0) and the GTID set as a length-coded string.
 */
const mysql8Ok = (gtids: string) => {
  const entry = Buffer.concat([Buffer.from([0]), lenenc(gtids)]);
  const state = Buffer.concat([Buffer.from([3, entry.length]), entry]);
  const body = Buffer.concat([Buffer.from([0x00, 0x01, 0x05, 0x02, 0x40, 0x00, 0x00, 0x00, state.length]), state]);
  const header = Buffer.from([body.length, 0, 0, 1]);
  return Buffer.concat([header, body]).toString('hex');
};

describe('a write\'s position, from its OK packet', () => {
  it('reads MariaDB\'s last_gtid (an OK packet recorded from the lab\'s MariaDB 10.11 after an INSERT)', () => {
    const recorded = '1b0000010001010240000000120010096c6173745f6774696405302d312d33';
    const result = parse(recorded);
    expect(result.insertId).toBe(1);
    expect(positionOf(result)).toBe('0-1-3');
  });

  it('reads MySQL 8\'s own GTID (session_track_gtids = OWN_GTID)', () => {
    const gtid = '3e11fa47-71ca-11e1-9e33-c80aa9429562:23';
    const result = parse(mysql8Ok(gtid));
    expect(result.insertId).toBe(5);
    expect(positionOf(result)).toBe(gtid);
  });

  it('keeps a GTID set of several members whole', () => {
    const set = '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-23,4f22fb58-82db-22f2-af44-d91bb0530673:7';
    expect(positionOf(parse(mysql8Ok(set)))).toBe(set);
  });

  it('is unknown when the server reported no state (no tracking, or no write)', () => {
    expect(positionOf(parse('0700000100010500000000'))).toBeUndefined();
    expect(positionOf({ insertId: 1 })).toBeUndefined();
    expect(positionOf(undefined)).toBeUndefined();
  });
});

describe('waiting for a position on a replica', () => {
  it('uses each server\'s own wait, and reads its answer', () => {
    const mariadb = waitFor('0-1-503');
    expect(mariadb.sql).toBe('SELECT MASTER_GTID_WAIT(?, ?) AS answer');
    expect(waitFor('0-1-503,1-2-9').sql).toBe(mariadb.sql);
    expect([0, -1, null].map((answer) => mariadb.reached({ answer }))).toEqual([true, false, false]);

    const mysql = waitFor('3e11fa47-71ca-11e1-9e33-c80aa9429562:23');
    expect(mysql.sql).toBe('SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?) AS answer');
    expect([0, 1, null].map((answer) => mysql.reached({ answer }))).toEqual([true, false, false]);
    expect(mysql.reached(undefined)).toBe(false);
  });
});
