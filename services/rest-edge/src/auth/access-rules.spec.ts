import { ANY_CHANNEL_OF_TEAM, CHANNEL_SCOPED } from '../domain/access';
import { AccessRules } from './access-rules';

describe('AccessRules', () => {
  const rules = new AccessRules([
    { method: 'GET', path: '/', access: CHANNEL_SCOPED },
    { method: 'GET', path: '/token', access: ANY_CHANNEL_OF_TEAM },
    { method: 'GET', path: '/orders/{orderUuid}', access: ANY_CHANNEL_OF_TEAM },
  ]);

  it('finds the rule of an endpoint by method and path, with or without a trailing slash', () => {
    expect(rules.ruleFor('GET', '/token')).toBe(ANY_CHANNEL_OF_TEAM);
    expect(rules.ruleFor('GET', '/token/')).toBe(ANY_CHANNEL_OF_TEAM);
    expect(rules.ruleFor('HEAD', '/token')).toBe(ANY_CHANNEL_OF_TEAM);
    expect(rules.ruleFor('GET', '/orders/3f1c')).toBe(ANY_CHANNEL_OF_TEAM);
  });

  it('matches paths case-insensitively, as the router does', () => {
    expect(rules.ruleFor('GET', '/TOKEN')).toBe(ANY_CHANNEL_OF_TEAM);
    expect(rules.ruleFor('get', '/Orders/3F1C')).toBe(ANY_CHANNEL_OF_TEAM);
  });

  it('applies the channel-scoped rule to everything else', () => {
    expect(rules.ruleFor('POST', '/token')).toBe(CHANNEL_SCOPED);
    expect(rules.ruleFor('GET', '/')).toBe(CHANNEL_SCOPED);
    expect(rules.ruleFor('GET', '')).toBe(CHANNEL_SCOPED);
    expect(rules.ruleFor('GET', '/tokens')).toBe(CHANNEL_SCOPED);
    expect(rules.ruleFor('GET', '/orders/a/b')).toBe(CHANNEL_SCOPED);
    expect(rules.ruleFor('GET', '/nope')).toBe(CHANNEL_SCOPED);
  });
});
