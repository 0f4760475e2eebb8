import { builder } from './builder.js';

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

export const PetStatusEnum = builder.enumType('PetStatus', {
  description: 'Availability status of an animal.',
  values: {
    available: { value: 'available', description: 'The animal is available.' },
    pending: { value: 'pending', description: 'Status value `pending`.' },
    sold: { value: 'sold', description: 'Status value `sold`.' },
  } as const satisfies Record<PetStatus, { value: PetStatus; description: string }>,
});
