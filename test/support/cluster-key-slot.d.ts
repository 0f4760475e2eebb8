/** The CRC16 hash slot Redis Cluster puts a key in (honouring `{tag}`s), as ioredis computes it. */
declare module 'cluster-key-slot' {
  export default function calculateSlot(key: string): number;
}
