/**
 * Imported first by main.ts (and by entry.ts, the bundle's), before any library is loaded: the service runs in production mode unless
 * NODE_ENV says otherwise. graphql-js reads it once, on load; outside production every type check of
 * every field also looks for a second copy of graphql in the process (a development aid).
 */
process.env.NODE_ENV ??= 'production';
