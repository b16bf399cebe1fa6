import {
  channelCodeViolations,
  channelIdOf,
  nameViolations,
  parseChannelId,
  STANDARD_CHANNEL_CODE,
  teamCodeViolations,
} from './codes';

describe('team codes', () => {
  it.each(['ab', 'acme', 'team42', '42', 'a'.repeat(32)])('accepts %s', (code) => {
    expect(teamCodeViolations(code, 'input.code')).toEqual([]);
  });

  it.each(['a', 'a'.repeat(33), 'Acme', 'ac-me', 'ac_me', 'ac me', '', 'acmé'])('refuses %j naming the property', (code) => {
    expect(teamCodeViolations(code, 'input.code')).toEqual([{ property: 'input.code', message: expect.any(String) }]);
  });
});

describe('channel codes', () => {
  it.each(['ab', 'shop', 'shop-2', 'eu-web-shop', 'a'.repeat(32), STANDARD_CHANNEL_CODE])('accepts %s', (code) => {
    expect(channelCodeViolations(code, 'input.code')).toEqual([]);
  });

  it.each(['a', 'a'.repeat(33), 'Shop', '-shop', 'shop-', 'sh_op', 'sh op', ''])('refuses %j', (code) => {
    expect(channelCodeViolations(code, 'input.code')).toHaveLength(1);
  });
});

describe('channel ids', () => {
  it('joins team and channel code with a hyphen', () => {
    expect(channelIdOf('acme', 'eu-shop')).toBe('acme-eu-shop');
  });

  it('splits at the first hyphen, since team codes have none', () => {
    expect(parseChannelId('acme-eu-shop')).toEqual({ teamCode: 'acme', channelCode: 'eu-shop' });
    expect(parseChannelId('acme-standard')).toEqual({ teamCode: 'acme', channelCode: 'standard' });
  });

  it.each(['acme', 'acme-', '-shop', 'Acme-shop', 'acme-x', 'acme--shop'])('rejects %j', (id) => {
    expect(parseChannelId(id)).toBeUndefined();
  });
});

describe('names', () => {
  it('accepts ordinary names', () => {
    expect(nameViolations('Acme Prints', 'input.name')).toEqual([]);
  });

  it('refuses blank and over-long names', () => {
    expect(nameViolations('   ', 'input.name')).toHaveLength(1);
    expect(nameViolations('x'.repeat(201), 'input.name')[0]?.property).toBe('input.name');
  });
});
