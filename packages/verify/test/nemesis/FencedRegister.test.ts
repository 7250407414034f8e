import { afterEach, describe, expect, it } from 'vitest';
import { FencedRegister } from '../../src/nemesis/FencedRegister.js';

let register: FencedRegister | undefined;
afterEach(async () => {
  await register?.close();
  register = undefined;
});

const post = (url: string, body: unknown): Promise<Response> => fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('the fenced register', () => {
  it('accepts the highest token and its repeats, refuses a lower one, and records each answer', async () => {
    let t = 0;
    register = await FencedRegister.listen({ now: () => (t += 10) });
    expect((await post(register.url, { node: 'n1', token: '4' })).status).toBe(200);
    expect((await post(register.url, { node: 'n1', token: '4' })).status).toBe(200);
    expect((await post(register.url, { node: 'n2', token: '8' })).status).toBe(200);
    const stale = await post(register.url, { node: 'n1', token: '4' });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({ accepted: false, highest: '8' });
    expect(register.writes).toEqual([
      { node: 'n1', at: 10, token: '4', accepted: true, highestSeen: '0' },
      { node: 'n1', at: 20, token: '4', accepted: true, highestSeen: '4' },
      { node: 'n2', at: 30, token: '8', accepted: true, highestSeen: '4' },
      { node: 'n1', at: 40, token: '4', accepted: false, highestSeen: '8' },
    ]);
  });

  it('compares tokens beyond 2^53 exactly', async () => {
    register = await FencedRegister.listen({ now: () => 0 });
    register.write('n1', 9007199254740993n);
    expect(register.write('n2', 9007199254740992n).accepted).toBe(false);
  });

  it('answers 400 to a body that is not a write, and records nothing', async () => {
    register = await FencedRegister.listen({ now: () => 0 });
    expect((await post(register.url, { node: 'n1', token: 4 })).status).toBe(400);
    expect((await post(register.url, 'nonsense')).status).toBe(400);
    expect(register.writes).toEqual([]);
  });
});
