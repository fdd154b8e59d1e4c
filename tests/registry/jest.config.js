// One slow suite (its own turbo task, test:registry): seeding the registry, publishing and installing
// take about 1.7 minutes on a quiet 2-core machine, 2.5 when it is shared (docs/benchmarks.md).
module.exports = {
  ...require('../../jest.preset.js'),
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  testTimeout: 300_000,
};
