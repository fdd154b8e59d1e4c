// One slow suite (its own turbo task, test:registry): seeding the registry, publishing and installing
// take about 1.7 minutes on a quiet 2-core machine, 2.5 when it is shared (docs/benchmarks.md). The
// timeouts only guard against hangs: a 2-core machine shared by several builds and test runs is
// several times slower than that, and one npm install then took longer than the old 5 minutes.
module.exports = {
  ...require('../../jest.preset.js'),
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  testTimeout: 900_000,
};
