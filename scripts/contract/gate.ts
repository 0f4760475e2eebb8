/** `npm run contract:gate`: prints what changed in schema/ since the release and exits 1 when a breaking change is not declared in CHANGELOG.md. */
import { resolve } from 'node:path';
import { runGate } from './check.js';
import { report } from './report.js';

// --root lets the tests run the gate on a scratch copy of the checkout.
const at = process.argv.indexOf('--root');
const root = resolve(at > 0 ? process.argv[at + 1] ?? '.' : '.');
const result = await runGate(root);
process.stdout.write(report(result));
process.exitCode = result.passed ? 0 : 1;
