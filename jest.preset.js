// Shared jest settings: ts-jest transpiles only (type errors are caught by `typecheck`),
// which keeps the suite fast on two cores.
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true, module: 'commonjs' }, diagnostics: false }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testRegex: '(src|test)/.*\\.(spec|e2e-spec)\\.ts$',
  // A guard against hangs, not a speed check: on a loaded two-core machine the embedder's model
  // generation took over jest's 5 s default.
  testTimeout: 30_000,
};
