import { builder } from './builder.js';
import './scalars.js';
import './pet-status.js';
import './pet.js';
import './new-pet.js';

export const schema = builder.toSchema();
