import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PublicEndpoint } from '../pipeline/use-public-endpoints.js';
import { contentSecurityPolicy } from './content-security-policy.js';
import { REST_BASE } from '../rest/routes.js';
import { staticAsset } from './static-asset.js';

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

/** `/v1/docs`: Swagger UI for `/v1/openapi.json`, every asset from npm's swagger-ui-dist, none from a CDN. */
export function restDocs(): Record<string, PublicEndpoint> {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const file = (name: string, type: string) =>
    staticAsset(readFileSync(join(dist, name)), type, 'public, max-age=86400');
  const page = staticAsset(PAGE, 'text/html; charset=utf-8', 'no-cache', { 'content-security-policy': POLICY });
  const initializer = staticAsset(INITIALIZER, 'text/javascript; charset=utf-8');
  const css = file('swagger-ui.css', 'text/css; charset=utf-8');
  const js = file('swagger-ui-bundle.js', 'text/javascript; charset=utf-8');
  const icon = file('favicon-32x32.png', 'image/png');
  return {
    [`${REST_BASE}/docs`]: { get: page },
    [`${REST_BASE}/docs/swagger-ui.css`]: { get: css },
    [`${REST_BASE}/docs/swagger-ui-bundle.js`]: { get: js },
    [`${REST_BASE}/docs/swagger-initializer.js`]: { get: initializer },
    [`${REST_BASE}/docs/favicon-32x32.png`]: { get: icon },
  };
}
