/**
 * Fields a client may not send, with the reason, for the message that refuses them. The type systems of
 * both surfaces refuse any unknown field; these ones deserve to say why.
 */
const FIXED_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  PetChange: {
    status: 'a pet\'s status changes only through its orders (placing, delivering or cancelling one)',
    id: 'a pet\'s id never changes',
  },
  NewPet: { id: 'the service assigns it' },
  NewOrder: {
    id: 'the service assigns it',
    status: 'an order is placed as "placed"; move it on with an update',
    placedAt: 'the service sets it',
    complete: 'it follows the order\'s status',
  },
};

/** Why `field` cannot be sent in `type`, when there is more to say than "unknown". */
export function fixedFieldReason(type: string, field: string): string | undefined {
  return Object.hasOwn(FIXED_FIELDS, type) && Object.hasOwn(FIXED_FIELDS[type]!, field) ? FIXED_FIELDS[type]![field] : undefined;
}
