import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The programs the system run starts, and the Debian package each comes in. */
export const NEEDED: readonly (readonly [program: string, pkg: string])[] = [
  ['haproxy', 'haproxy'],
  ['mariadbd', 'mariadb-server'],
  ['mariadb-install-db', 'mariadb-server'],
  ['redis-server', 'redis-server'],
];

const runnable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The packages whose programs are on none of `path`'s folders (Debian keeps daemons in /usr/sbin). */
export function missingPackages(path = `${process.env.PATH ?? ''}${delimiter}/usr/sbin`): string[] {
  const folders = path.split(delimiter).filter(Boolean);
  const missing = NEEDED.filter(([program]) => !folders.some((folder) => runnable(join(folder, program)))).map(([, pkg]) => pkg);
  return [...new Set(missing)];
}
