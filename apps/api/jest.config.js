module.exports = {
  ...require('../../jest.preset.js'),
  testTimeout: 30000,
  globalSetup: '<rootDir>/test/report-skips.js',
};
