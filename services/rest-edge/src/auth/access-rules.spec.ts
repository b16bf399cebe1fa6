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

  it('matches paths case-sensitively, as the router does (a parameter keeps its case); methods in any case', () => {
    expect(rules.ruleFor('GET', '/TOKEN')).toBe(CHANNEL_SCOPED);
    expect(rules.ruleFor('get', '/orders/3F1C')).toBe(ANY_CHANNEL_OF_TEAM);
    expect(rules.ruleFor('GET', '/Orders/3f1c')).toBe(CHANNEL_SCOPED);
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
