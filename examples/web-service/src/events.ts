/**
 * What a web-service process reports, one JSON object per line on stdout (fencing tokens as
 * decimal strings).
 */
export type ServiceEvent =
  | { readonly event: 'listening'; readonly id: string; readonly url: string }
  | { readonly event: 'ready'; readonly id: string }
  | { readonly event: 'role'; readonly role: string; readonly reason: string }
  | { readonly event: 'leader'; readonly leader: string | null; readonly token: bigint | null }
  | { readonly event: 'leading'; readonly token: bigint }
  | { readonly event: 'digest'; readonly token: bigint; readonly n: number; readonly written: boolean }
  | { readonly event: 'stopped-leading'; readonly token: bigint; readonly reason: string; readonly digests: number }
  | { readonly event: 'resigning' }
  | { readonly event: 'error'; readonly where: string; readonly message: string }
  | { readonly event: 'stopping'; readonly signal: string }
  | { readonly event: 'stopped' };

/** Prints one event as a line of JSON. */
export function printEvent(event: ServiceEvent): void {
  process.stdout.write(`${JSON.stringify(event, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}\n`);
}
