import { defineOperation } from './graphql';

describe('defineOperation', () => {
  it('prebuilds the constant part of the request body', () => {
    const op = defineOperation<{ id: string }, unknown>(`
      query EdgeChannel($id: ID!) {
        channel(id: $id) { id }
      }
    `);
    expect(op.name).toBe('EdgeChannel');
    expect(op.document).toBe('query EdgeChannel($id: ID!) { channel(id: $id) { id } }');
    expect(JSON.parse(`${op.bodyPrefix}${JSON.stringify({ id: 'acme-shop' })}}`)).toEqual({
      operationName: 'EdgeChannel',
      query: op.document,
      variables: { id: 'acme-shop' },
    });
  });

  it('refuses an anonymous operation', () => {
    expect(() => defineOperation('{ team { code } }')).toThrow(/no name/);
  });
});
