// Test kinds by suffix: *.spec.ts unit (pure, no I/O), *.int.spec.ts integration (real Postgres,
// Redis, Kafka), *.e2e.spec.ts end to end (the whole system through the REST edge and gateway).
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const shared = {
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: {
    '^@pf/platform/(.*)$': '<rootDir>/libs/platform/src/$1',
    // Prisma's generated clients import their siblings as './x.js' (importFileExtension = "js"),
    // which tsc maps to x.ts; jest needs the same mapping to load them from src/.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/gateway', '<rootDir>/embedded', '<rootDir>/deploy', '<rootDir>/test'],
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};
const slowTimeout = '<rootDir>/test/integration-timeout.ts';
module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['**/*.spec.ts'], testPathIgnorePatterns: ['\\.int\\.spec\\.ts$', '\\.e2e\\.spec\\.ts$', '/node_modules/', '/dist/'] },
    { ...shared, displayName: 'integration', testMatch: ['**/*.int.spec.ts'], testPathIgnorePatterns: ['/node_modules/', '/dist/'], setupFilesAfterEnv: [slowTimeout] },
    { ...shared, displayName: 'e2e', testMatch: ['**/*.e2e.spec.ts'], testPathIgnorePatterns: ['/node_modules/', '/dist/'], setupFilesAfterEnv: [slowTimeout] },
  ],
};
