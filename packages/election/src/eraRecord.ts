import { readWindow, writeMoving, type Clock, type CompoundKey, type KV, type Logger } from '@roster/kv-adapter';
import { withDeadline } from '@roster/kv-adapter/internal';

/** What the era key told: the highest era recorded, and whether every nonce of it answered. */
export interface EraRecord {
  /** The highest era found (0 when none). */
  readonly era: number;
  /** True when every nonce of the era key was read (a nonce that failed may hide a higher era). */
  readonly complete: boolean;
}

/**
 * The highest era recorded at the era key (0 when none can be read), so that a node restarted
 * while the leader key is unavailable still claims above every era used. Never rejects.
 */
export async function readEraRecord(kv: KV, key: CompoundKey, clock: Clock, opTimeoutMs: number, onGarbage: () => void): Promise<EraRecord> {
  const slots = await readWindow(kv, key, { deadline: { clock, ms: opTimeoutMs } }).catch(() => []);
  let max = 0;
  for (const slot of slots) {
    if (!slot.ok || slot.value === null) continue;
    if (/^[1-9]\d{0,15}$/.test(slot.value) && Number.isSafeInteger(Number(slot.value))) max = Math.max(max, Number(slot.value));
    else onGarbage();
  }
  return { era: max, complete: slots.length > 0 && slots.every((s) => s.ok) };
}

/** Records a new leader's era at the era key (best effort, in the background). */
export function recordEra(kv: KV, key: CompoundKey, era: number, clock: Clock, opTimeoutMs: number, logger: Logger): void {
  void writeMoving(key, (k) => withDeadline(clock, opTimeoutMs, 'era write', kv.set(k, String(era)))).catch((error: unknown) =>
    logger.debug({ err: error }, 'could not record the era'),
  );
}
