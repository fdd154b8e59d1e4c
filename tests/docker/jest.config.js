// The container image, built and run on this machine's Docker (its own turbo task, test:docker).
// Building the image is most of its time (docs/benchmarks.md), so hooks and tests get a long limit.
module.exports = {
  ...require('../../jest.preset.js'),
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  testTimeout: 600_000,
  globalSetup: '<rootDir>/test/report-skips.js',
};
