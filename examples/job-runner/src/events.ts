/**
 * What a job-runner process reports, one JSON object per line on stdout (fencing tokens as
 * decimal strings).
 */
export type RunnerEvent =
  | { readonly event: 'ready'; readonly id: string }
  | { readonly event: 'leader'; readonly leader: string | null; readonly token: bigint | null }
  | { readonly event: 'leading'; readonly token: bigint }
  | { readonly event: 'stopped-leading'; readonly token: bigint; readonly reason: string }
  | { readonly event: 'balance'; readonly index: number; readonly threads: number; readonly total: number }
  | { readonly event: 'task-start'; readonly token: bigint; readonly round: number }
  | { readonly event: 'task-write'; readonly token: bigint; readonly round: number; readonly accepted: boolean; readonly highest: bigint }
  | { readonly event: 'jobs'; readonly round: number; readonly index: number; readonly threads: number; readonly total: number; readonly jobs: readonly string[] }
  | { readonly event: 'error'; readonly where: string; readonly message: string }
  | { readonly event: 'stopped' };

/** Prints one event as a line of JSON. */
export function printEvent(event: RunnerEvent): void {
  process.stdout.write(`${JSON.stringify(event, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}\n`);
}
