import type { BenchResult } from '../result.js';
export async function writeDocs(_result: BenchResult, _root: string): Promise<string[]> {
  return [];
}
