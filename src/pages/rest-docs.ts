import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PublicEndpoint } from '../pipeline/routing.js';
import { contentSecurityPolicy } from './content-security-policy.js';
import { onFirstRequest } from './on-first-request.js';
import { gzippedAsset, staticAsset } from './static-asset.js';

// Relative URLs, so the page also works behind a proxy that mounts the API under another path.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // The stock page asks validator.swagger.io about every non-local document: not from our users' browsers.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/** Scripts only from files of this service (no inline one), and calls only to it. */
const POLICY = contentSecurityPolicy({
  'script-src': ["'self'"],
  // Swagger UI sets style attributes as it renders.
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
});

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Animal Store API</title>
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/swagger-initializer.js"></script>
</body>
</html>
`;

/**
 * `<base>/docs`: Swagger UI for `<base>/openapi.json`, every asset from npm's swagger-ui-dist, none from a
 * CDN. Its files (1.9 MB) are read on their first request and kept gzipped (0.5 MB): an instance nobody
 * reads the docs on never holds them.
 */
export function restDocs(base: string): Record<string, PublicEndpoint> {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const file = (name: string, type: string) => onFirstRequest(`Swagger UI's ${name}`, async () =>
    gzippedAsset(await readFile(join(dist, name)), type, 'public, max-age=86400'));
  const page = staticAsset(PAGE, 'text/html; charset=utf-8', 'no-cache', { 'content-security-policy': POLICY });
  const initializer = staticAsset(INITIALIZER, 'text/javascript; charset=utf-8');
  const css = file('swagger-ui.css', 'text/css; charset=utf-8');
  const js = file('swagger-ui-bundle.js', 'text/javascript; charset=utf-8');
  const icon = file('favicon-32x32.png', 'image/png');
  return {
    [`${base}/docs`]: { get: page },
    [`${base}/docs/swagger-ui.css`]: { get: css },
    [`${base}/docs/swagger-ui-bundle.js`]: { get: js },
    [`${base}/docs/swagger-initializer.js`]: { get: initializer },
    [`${base}/docs/favicon-32x32.png`]: { get: icon },
  };
}
