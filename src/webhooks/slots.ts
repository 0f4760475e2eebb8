/**
 * The requests one instance has in flight: at most `total` in all, and at most `perEndpoint` to one endpoint
 * (one while its last attempt here failed: a silent or failing endpoint is probed one request at a time).
 * A slow endpoint so holds only its own slots; everyone else's deliveries take the rest.
 */
export function deliverySlots(total: number, perEndpoint: number) {
  const inFlight = new Map<number, number>();
  const failing = new Set<number>();
  let used = 0;
  const limitOf = (endpointId: number) => (failing.has(endpointId) ? 1 : perEndpoint);
  const freeOf = (endpointId: number) => limitOf(endpointId) - (inFlight.get(endpointId) ?? 0);

  return {
    /** Requests that may still start. */
    get room() { return total - used; },
    get used() { return used; },
    /** Endpoints with no slot free: a claim skips their deliveries. */
    full: (): number[] => [...inFlight.keys()].filter((id) => freeOf(id) <= 0),
    /**
     * Of due deliveries (oldest first), those that would get a slot now: endpoints with nothing in flight
     * go first, so a free slot goes to an idle endpoint before one already being sent to; at most `room`.
     */
    pick<T extends { endpointId: number }>(due: readonly T[]): T[] {
      const idle = due.filter((delivery) => !inFlight.has(delivery.endpointId));
      const busy = due.filter((delivery) => inFlight.has(delivery.endpointId));
      const given = new Map<number, number>();
      const picked: T[] = [];
      for (const delivery of [...idle, ...busy]) {
        if (picked.length >= total - used) break;
        const n = given.get(delivery.endpointId) ?? 0;
        if (n >= freeOf(delivery.endpointId)) continue;
        given.set(delivery.endpointId, n + 1);
        picked.push(delivery);
      }
      return picked;
    },
    take(endpointId: number) {
      inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
      used += 1;
    },
    /** A request ended: `failed` says how (undefined when it was not sent: the endpoint is as it was). */
    release(endpointId: number, failed?: boolean) {
      const left = (inFlight.get(endpointId) ?? 1) - 1;
      if (left > 0) inFlight.set(endpointId, left);
      else inFlight.delete(endpointId);
      used -= 1;
      if (failed === true) failing.add(endpointId);
      if (failed === false) failing.delete(endpointId);
    },
  };
}

export type DeliverySlots = ReturnType<typeof deliverySlots>;
