import { ConfigError as StoreConfigError, RosterError } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/index.js';

// A development dependency only: the client's own error must be recognised by the guards of the
// other Roster packages without the client loading them.
describe('the client’s ConfigError', () => {
  it('names the field, keeps the value and says what was expected', () => {
    const error = new ConfigError('retryMs', 0, 'Expected `retryMs` to be a positive integer of milliseconds');
    expect(error).toMatchObject({ name: 'ConfigError', code: 'CONFIG_INVALID', field: 'retryMs', value: 0 });
    expect(error.message).toBe('config: Expected `retryMs` to be a positive integer of milliseconds, got 0');
  });

  it('is recognised by RosterError.is and ConfigError.is of @roster/kv-adapter, and the other way round', () => {
    const mine = new ConfigError('url', 'x', 'Expected `url` to be an http: URL');
    expect(RosterError.is(mine)).toBe(true);
    expect(RosterError.is(mine, 'CONFIG_INVALID')).toBe(true);
    expect(StoreConfigError.is(mine)).toBe(true);
    expect(ConfigError.is(new StoreConfigError('url', 'x', 'Expected `url` to be an http: URL'))).toBe(true);
  });

  it('does not take a plain Error, or a Roster error of another code, for a ConfigError', () => {
    expect(ConfigError.is(Object.assign(new Error('config: nope'), { code: 'CONFIG_INVALID' }))).toBe(false);
    expect(ConfigError.is(new RosterError('KV_CLOSED', 'kv: closed'))).toBe(false);
  });
});
