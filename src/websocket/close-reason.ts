/** A close frame's reason holds at most 123 bytes: a longer message is cut on a character's edge. */
export function reasonOf(message: string): string {
  const bytes = Buffer.from(message);
  return bytes.length <= 123 ? message : `${bytes.subarray(0, 120).toString().replace(/\uFFFD+$/, '')}...`;
}
