import { builder } from './builder.js';
import './scalars.js';
import './pet.js';
import './order.js';
import './events.js';
import './webhooks.js';
import './rate-limit.js';
import './node.js';

export const schema = builder.toSchema();
