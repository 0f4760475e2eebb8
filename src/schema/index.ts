import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { specifiedDirectives } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './pet.js';
import './order.js';
import './events.js';
import './webhooks.js';
import './rate-limit.js';
import './node.js';

// Incremental delivery's directives, as the GraphQL-over-HTTP incremental delivery proposal defines them.
export const schema = builder.toSchema({ directives: [...specifiedDirectives, GraphQLDeferDirective, GraphQLStreamDirective] });
