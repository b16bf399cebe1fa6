import { isUuid } from './uuid';

describe('isUuid', () => {
  it.each(['0b6a1c9e-4f5d-4c1a-9e2b-7d3f8a6b5c4d', '0B6A1C9E-4F5D-4C1A-9E2B-7D3F8A6B5C4D', '00000000-0000-0000-0000-000000000000'])('accepts %s', (v) => {
    expect(isUuid(v)).toBe(true);
  });

  it.each(['', 'not-a-uuid', '0b6a1c9e4f5d4c1a9e2b7d3f8a6b5c4d', '0b6a1c9e-4f5d-4c1a-9e2b-7d3f8a6b5c4', ' 0b6a1c9e-4f5d-4c1a-9e2b-7d3f8a6b5c4d', '0b6a1c9e-4f5d-4c1a-9e2b-7d3f8a6b5c4g'])(
    'refuses %j',
    (v) => {
      expect(isUuid(v)).toBe(false);
    },
  );
});
