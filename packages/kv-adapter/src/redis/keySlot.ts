/** CRC16-XMODEM (polynomial 0x1021), the checksum Redis Cluster hashes keys with. */
const TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

/**
 * The Redis Cluster hash slot (0–16383) of `key`, as `CLUSTER KEYSLOT` computes it: CRC16 of the
 * key's UTF-8 bytes, or of its hash tag (the bytes between the first `{` and the next `}`, when
 * not empty), modulo 16384.
 */
export function keySlot(key: string): number {
  let bytes = Buffer.from(key, 'utf8');
  const open = bytes.indexOf(0x7b);
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) bytes = bytes.subarray(open + 1, close);
  }
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ b) & 0xff]!;
  return crc % 16384;
}
