import type { PetStatus } from '../domain/pet.js';
import { statusEnum } from './status-enum.js';

export const PetStatusEnum = statusEnum<PetStatus>('PetStatus', 'Availability status of an animal. It follows the animal\'s orders.', {
  available: 'The animal is available: it can be ordered.',
  pending: 'An order for the animal is open.',
  sold: 'The animal\'s order was delivered.',
});
