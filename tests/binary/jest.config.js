// The single executable, as a user without Node.js runs it (its own turbo task, test:binary).
module.exports = {
  ...require('../../jest.preset.js'),
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  testTimeout: 120_000,
  globalSetup: '<rootDir>/test/report-skips.js',
};
