import { builder } from './builder.js';
import './scalars.js';
import './pet-status.js';
import './pet.js';
import './new-pet.js';
import './pet-change.js';
import './order.js';
import './new-order.js';
import './events.js';
import './rate-limit.js';

export const schema = builder.toSchema();
